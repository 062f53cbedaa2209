import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { raw } from './raw-http.ts';

/**
 * The attack suite: every spelling of the control-plane and API
 * prefixes an attacker can send on the wire, webhooks aimed at the sandbox
 * itself, and a corrupted acknowledged journal line. Requests go over a real
 * socket with the path exactly as written (no client-side normalisation).
 */
/** `/__sandbox` and `/v1` spelt as an attacker would; the router decodes some, others are different paths. */
const controlSpellings = ['/%5F%5Fsandbox', '/%5f%5fsandbox', '/__%73andbox', '/%255F%255Fsandbox', '//__sandbox', '/./__sandbox', '/v1/../__sandbox'];
const apiSpellings = ['/%761', '/%76%31', '/v%31', '/%25761', '//v1', '/./v1', '/x/../v1'];

const fillParams = (url: string) => url.replace(/:(\w+)/g, (_m, name: string) => (name === 'name' ? 'snap' : `${name}_x`));
const bodyFor = (method: string) => (method === 'GET' || method === 'DELETE' || method === 'HEAD' ? undefined : '{}');

describe('the control plane on a non-loopback host, without its token', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, host: '0.0.0.0', storage: 'memory', clock: 'manual' });
  });
  afterAll(() => sandbox.stop());

  it('answers 401 on the plain prefix (the baseline)', async () => {
    const res = await raw(sandbox.port, 'GET', '/__sandbox/workspaces');
    expect(res.status).toBe(401);
  });

  it('answers 401 or 404, never 2xx, to every control route through every spelling of its prefix', async () => {
    await sandbox.context.controlPlane.ready(); // built on first use: its routes join the catalog then
    const routes = sandbox.context.routes.routes.filter((r) => r.url.startsWith('/__sandbox') && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(30);
    const seen: string[] = [];
    for (const route of routes) {
      for (const spelling of controlSpellings) {
        const path = spelling + fillParams(route.url).slice('/__sandbox'.length);
        const body = bodyFor(route.method);
        const res = await raw(sandbox.port, route.method, path, body ? { 'content-type': 'application/json' } : {}, body);
        seen.push(`${route.method} ${path} -> ${res.status}`);
        expect([401, 404], `${route.method} ${path} answered ${res.status}: ${res.body.slice(0, 120)}`).toContain(res.status);
        expect(res.body).not.toContain('tcs_live_');
      }
    }
    expect(seen.length).toBe(routes.length * controlSpellings.length);
  });

  it('has not been reset, nor minted a key, by any of those requests', async () => {
    const token = sandbox.controlToken!;
    const res = await raw(sandbox.port, 'GET', '/__sandbox/workspaces', { 'x-sandbox-token': token });
    expect(res.status).toBe(200);
    const keys = (JSON.parse(res.body) as { data: { keys: unknown[] }[] }).data.flatMap((w) => w.keys);
    expect(keys).toHaveLength(4); // the fixture keys, nothing minted
  });
});

describe('the API without a key', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
  });
  afterAll(() => sandbox.stop());

  it('answers 401 or 404, never 2xx or 5xx, to every /v1 route through every spelling of its prefix', async () => {
    const routes = sandbox.context.routes.routes.filter((r) => r.url.startsWith('/v1') && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(25);
    for (const route of routes) {
      for (const spelling of ['/v1', ...apiSpellings]) {
        const path = spelling + fillParams(route.url).slice('/v1'.length);
        const body = bodyFor(route.method);
        const res = await raw(sandbox.port, route.method, path, body ? { 'content-type': 'application/json' } : {}, body);
        expect([401, 404], `${route.method} ${path} answered ${res.status}: ${res.body.slice(0, 120)}`).toContain(res.status);
        expect(JSON.parse(res.body)).toEqual({ error: expect.any(String) });
      }
    }
  });

  it('serves the decoded spelling to a valid key, exactly like the plain one', async () => {
    const auth = { authorization: `Bearer ${KEYS.liveFull}` };
    const plain = await raw(sandbox.port, 'GET', '/v1/products?limit=1', auth);
    const encoded = await raw(sandbox.port, 'GET', '/%761/products?limit=1', auth);
    expect(plain.status).toBe(200);
    expect(encoded.status).toBe(200);
    expect(JSON.parse(encoded.body)).toEqual(JSON.parse(plain.body));
  });
});

describe('webhook subscriptions aimed at the sandbox itself', () => {
  let sandbox: Sandbox;
  const subscribe = (url: string) =>
    raw(
      sandbox.port,
      'POST',
      '/v1/webhooks/subscriptions',
      { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
      JSON.stringify({ url, events: ['*'] }),
    );
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
  });
  afterAll(() => sandbox.stop());

  const self = (port: number) => [
    `http://127.0.0.1:${port}/hook`,
    `http://localhost:${port}/hook`,
    `http://[::1]:${port}/hook`,
    `http://0.0.0.0:${port}/hook`,
    `http://[::]:${port}/hook`, // the IPv6 unspecified address reaches this host too
    `http://2130706433:${port}/hook`,
    `http://0x7f.1:${port}/hook`,
    `http://127.9.9.9:${port}/hook`,
    `http://[::ffff:127.0.0.1]:${port}/hook`,
    'http://127.0.0.1:9/__sandbox/reset',
    'http://localhost:9/%5F%5Fsandbox/reset',
    'http://[::1]:9/__%73andbox/reset',
    'http://127.0.0.1:9/x/..%2F__sandbox/reset',
    'http://127.0.0.1:9/%255F%255Fsandbox/reset',
  ];

  it('refuses each with 400 VALIDATION_400 naming body.url', async () => {
    for (const url of self(sandbox.port)) {
      const res = await subscribe(url);
      expect(res.status, `${url}: ${res.body}`).toBe(400);
      const body = JSON.parse(res.body) as { code: string; details: { message: string }[] };
      expect(body.code).toBe('VALIDATION_400');
      expect(body.details[0]!.message).toMatch(/^body\.url: refused: /);
    }
  });

  it('still accepts a real local receiver on another port', async () => {
    const res = await subscribe('http://127.0.0.1:9/webhooks');
    expect(res.status).toBe(201);
  });

  it('refuses a PATCH that points an existing subscription at the sandbox', async () => {
    const created = JSON.parse((await subscribe('http://localhost:9/in')).body) as { data: { id: string } };
    const res = await raw(
      sandbox.port,
      'PATCH',
      `/v1/webhooks/subscriptions/${created.data.id}`,
      { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
      JSON.stringify({ url: `http://localhost:${sandbox.port}/__sandbox/reset` }),
    );
    expect(res.status).toBe(400);
  });

  it('refuses at delivery time a stored subscription that aims at the sandbox (imported state, DNS rebinding), and is not reset', async () => {
    const ws = sandbox.workspaces.find((w) => w.mode === 'live')!.id;
    const created = JSON.parse((await subscribe('http://localhost:9/in')).body) as { data: { id: string } };
    const row = sandbox.store.get('webhookSubscriptions', ws, created.data.id);
    expect(row).toBeDefined();
    // as an imported state, or a name that resolved elsewhere when it was saved, would leave it
    await sandbox.store.commit([
      { type: 'put', collection: 'webhookSubscriptions', workspaceId: ws, row: { ...row!, url: `http://localhost:${sandbox.port}/__sandbox/reset` } },
    ]);
    const form = await raw(
      sandbox.port,
      'POST',
      '/v1/forms',
      { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
      JSON.stringify({ name: 'Survives', fields: [] }),
    );
    expect(form.status).toBe(201);
    const emitted = await raw(
      sandbox.port,
      'POST',
      '/__sandbox/events',
      { 'content-type': 'application/json' },
      JSON.stringify({ workspaceId: ws, type: 'booking.created' }),
    );
    expect(emitted.status).toBe(201);
    const deliveries = await waitForAttempt(sandbox.port, created.data.id);
    expect(deliveries.error).toMatch(/refused: .* (this sandbox itself|control plane)/);
    const formId = (JSON.parse(form.body) as { id: string }).id;
    expect(sandbox.store.get('forms', ws, formId)).toBeDefined(); // a reset would have removed it
  });
});

/** The first attempt of the newest delivery to a subscription, read through the control plane. */
async function waitForAttempt(port: number, subscriptionId: string): Promise<{ error: string | null }> {
  // a deadline in time, not 100 turns of the event loop: turns are quick, the delivery may not be on a loaded machine
  for (const end = Date.now() + 15_000; Date.now() < end; ) {
    const res = await raw(port, 'GET', `/__sandbox/deliveries?subscriptionId=${subscriptionId}`);
    const list = (JSON.parse(res.body) as { data: { subscriptionId: string; attempts: { error: string | null }[] }[] }).data.filter(
      (d) => d.subscriptionId === subscriptionId,
    );
    const attempt = list[0]?.attempts[0];
    if (attempt) return attempt;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no delivery attempt was recorded');
}

describe('a corrupted acknowledged journal line', () => {
  it('refuses to start, in one line naming the journal, and leaves both files untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tcs-attack-'));
    const path = join(dir, 'db.json');
    const first = await createSandbox({ listen: false, storage: path, clock: 'manual' });
    const res = await first.app.inject({
      method: 'POST',
      url: '/v1/forms',
      headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'Acknowledged', fields: [] }),
    });
    expect(res.statusCode).toBe(201); // acknowledged: its journal line, newline included, is on disk
    await (first.store as unknown as { abandon(): Promise<void> }).abandon(); // as if killed: no compaction
    await first.app.close();
    const journal = `${path}.journal`;
    const text = readFileSync(journal, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    writeFileSync(journal, `${text.slice(0, -20)}#corrupt#\n`);
    const before = { db: readFileSync(path), journal: readFileSync(journal) };
    const error = await createSandbox({ listen: false, storage: path, clock: 'manual' }).then(
      () => null,
      (err: unknown) => err as Error,
    );
    expect(error?.message).toMatch(/journal .* is corrupt at line \d+/);
    expect(error?.message).toContain(journal);
    expect(error?.message).not.toContain('\n');
    expect(readFileSync(path).equals(before.db)).toBe(true);
    expect(readFileSync(journal).equals(before.journal)).toBe(true);
  });

  it('drops only a torn last line (no newline: never acknowledged), and says so in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tcs-attack-'));
    const path = join(dir, 'db.json');
    const first = await createSandbox({ listen: false, storage: path, clock: 'manual' });
    await (first.store as unknown as { abandon(): Promise<void> }).abandon();
    await first.app.close();
    writeFileSync(`${path}.journal`, '{"seq":99,"ops":[{"type":"put"');
    const second = await createSandbox({ listen: false, storage: path, clock: 'manual' });
    expect(second.warnings).toEqual([expect.stringMatching(/^dropped the last line of .*db\.json\.journal: it was cut short/)]);
    await second.stop();
  });
});
