import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pickDeparture } from '../http/booking-flow/helpers.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * One request, one commit (docs/storage.md): a mutating request's
 * records, the outbox rows of its events and its saved Idempotency-Key outcome
 * are one journal line, durable before the answer.
 */
let t: TestSandbox | undefined;
let dir: string | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

type Line = { seq: number; from?: number; ops: { collection: string; row?: { id: string } }[] };
const journal = (file: string): Line[] =>
  readFileSync(`${file}.journal`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

async function fileSandbox(): Promise<{ t: TestSandbox; file: string }> {
  dir = mkdtempSync(join(tmpdir(), 'one-commit-'));
  const file = join(dir, 'db.json');
  t = await testSandbox({ enforceRateLimits: false, storage: file });
  await t.sandbox.store.flush();
  return { t, file };
}

describe('one request, one commit', () => {
  it('a keyed booking with a subscriber is one journal line: the booking, its outbox row and its idempotency outcome', async () => {
    const { t, file } = await fileSandbox();
    const sub = await t.request('POST', '/v1/webhooks/subscriptions', { body: { url: 'http://127.0.0.1:9/hooks', events: ['booking.created'] } });
    expect(sub.statusCode).toBe(201);
    const before = journal(file).length;
    const { departure } = pickDeparture(t);
    const res = await t.request('POST', '/v1/bookings', { body: { departureId: departure.id, adults: 1 }, headers: { 'idempotency-key': 'one-commit-1' } });
    expect(res.statusCode).toBe(201);
    // durable when answered: the line is in the file already
    const lines = journal(file).slice(before);
    expect(lines).toHaveLength(1);
    const collections = new Set(lines[0]!.ops.map((op) => op.collection));
    expect(collections).toContain('bookings');
    expect(collections).toContain('webhookDeliveries');
    expect(collections).toContain('idempotency');
    expect(lines[0]!.ops.some((op) => op.row?.id === res.json().data.id)).toBe(true);
  });
});
