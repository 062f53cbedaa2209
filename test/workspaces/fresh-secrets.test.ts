import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitDomainEvent } from '../../src/core/events.ts';
import { createSandbox } from '../../src/index.ts';
import type { WebhookSubscriptionRecord } from '../../src/resources/webhooks/schemas.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

/**
 * The secrets copied into a created workspace (its webhook
 * subscriptions' signing secrets) are new random values, not derived from the
 * id mask (which anyone can compute from two workspace ids) and the
 * template's secret (fixture secrets follow from the seed).
 */
let t: TestSandbox;
let receiver: Receiver;
let fixture: WebhookSubscriptionRecord;
beforeAll(async () => {
  // no rewritten row is kept: every read rewrites from the template, so a secret must be stored to stay the same
  t = await testSandbox({ enforceRateLimits: false, workspaceCacheRows: 0 });
  receiver = await startReceiver();
  fixture = t.sandbox.store.list<WebhookSubscriptionRecord>('webhookSubscriptions', t.sandboxWorkspaceId)[0]!;
});
afterAll(async () => {
  await t.sandbox.stop();
  await receiver.close();
});

/** the subscription to `url` in a workspace, with its secret, as the control plane shows it (`sandbox listen --print-secret`) */
async function subscription(workspaceId: string, url = fixture.url): Promise<{ subscription: { id: string }; secret: string }> {
  const res = await t.request('GET', `/__sandbox/webhook-subscriptions/by-url?workspaceId=${workspaceId}&url=${encodeURIComponent(url)}`, { key: null });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}
/** what the secret was before: HMAC-SHA256 of the template's secret under the workspace's mask */
const derived = (mask: string) => `whsec_${createHmac('sha256', mask).update(fixture.secret).digest('base64')}`;

describe("a created workspace's webhook secrets", () => {
  it('are new random values: two workspaces from one template differ, and neither follows from the mask and the template secret', async () => {
    const [a, b] = [await t.sandbox.createWorkspace(), await t.sandbox.createWorkspace()];
    const [secretA, secretB] = [(await subscription(a.id)).secret, (await subscription(b.id)).secret];
    for (const secret of [secretA, secretB]) expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(new Set([secretA, secretB, fixture.secret]).size).toBe(3);
    expect(secretA).not.toBe(derived(t.sandbox.context.workspaces.overlay(a.id)!.mask));
    expect(secretB).not.toBe(derived(t.sandbox.context.workspaces.overlay(b.id)!.mask));
  });

  it('stay the same across reads, a reset of the workspace and a global reset', async () => {
    const w = await t.sandbox.createWorkspace();
    const secret = (await subscription(w.id)).secret;
    expect((await subscription(w.id)).secret).toBe(secret);
    await w.reset();
    expect((await subscription(w.id)).secret).toBe(secret);
    await t.sandbox.reset();
    expect((await subscription(w.id)).secret).toBe(secret);
  });

  it('sign what the workspace delivers: it verifies with the secret the API gives, not with the template one', async () => {
    const w = await t.sandbox.createWorkspace();
    const { subscription: copied } = await subscription(w.id);
    // the copied subscription points at the discard port and is paused: point it at a receiver
    const patched = await t.request('PATCH', `/v1/webhooks/subscriptions/${copied.id}`, { key: w.keys[0]!.key, body: { url: receiver.url, active: true } });
    expect(patched.statusCode, patched.body).toBe(200);
    const { secret } = await subscription(w.id, receiver.url);
    const arrived = receiver.next();
    emitDomainEvent(t.sandbox.events, t.sandbox.clock, w.id, 'booking.created', { id: 'book_fresh_secret' });
    await t.sandbox.context.webhooks.idle();
    const delivery = await arrived;
    const headers = delivery.headers as Record<string, string>;
    expect(() => new Webhook(secret).verify(delivery.body, headers)).not.toThrow();
    expect(() => new Webhook(fixture.secret).verify(delivery.body, headers)).toThrow();
    expect(JSON.parse(delivery.body)).toMatchObject({ workspace_id: w.id });
  });
});

describe('stored with the workspace', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tcs-fresh-secrets-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('the secret survives a restart', async () => {
    const storage = join(dir, 'db.json');
    const first = await createSandbox({ storage, listen: false, fsync: false });
    const w = await first.createWorkspace();
    const secretOf = (s: typeof first) => s.store.list<WebhookSubscriptionRecord>('webhookSubscriptions', w.id)[0]!.secret;
    const before = secretOf(first);
    await first.stop();
    const second = await createSandbox({ storage, listen: false, fsync: false });
    try {
      expect(secretOf(second)).toBe(before);
    } finally {
      await second.stop();
    }
  });
});
