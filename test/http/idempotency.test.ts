import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * Idempotency-Key over HTTP (API description, "Common request rules"): replays, refusals, the
 * 24 h window on the sandbox clock, the purge, and where saved outcomes do not go. The store's
 * rules one by one: test/core/idempotency.test.ts.
 *
 * The tests share one sandbox: each uses keys, names and outcomes of its own, so what another
 * test left (records, forms, a clock moved on by a day) changes none of its answers.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const form = (name: string) => ({ name, fields: [{ id: 'email', type: 'email', label: 'E-mail', required: true }] });
/** Whether the live workspace holds a saved outcome for `key`. */
const saved = (key: string) => t.sandbox.store.list('idempotency', t.liveWorkspaceId).some((r) => (r as { id: string }).id === key);

describe('Idempotency-Key on POST (Common request rules)', () => {
  it('the same key and body replays the first status and body with Idempotent-Replayed: true', async () => {
    const headers = { 'idempotency-key': 'create-form-1' };
    const first = await t.request('POST', '/v1/forms', { body: form('Lead capture'), headers });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const second = await t.request('POST', '/v1/forms', { body: form('Lead capture'), headers });
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toBe(first.body);
    const exported = await t.request('GET', `/__sandbox/workspaces/${t.liveWorkspaceId}/export`, { key: null });
    expect(exported.json().data.forms.filter((f: { name: string }) => f.name === 'Lead capture')).toHaveLength(1);
  });

  it('the same key with a different body gets 422', async () => {
    const headers = { 'idempotency-key': 'k-422' };
    await t.request('POST', '/v1/forms', { body: form('A'), headers });
    const res = await t.request('POST', '/v1/forms', { body: form('B'), headers });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatch(/Idempotency-Key/);
  });

  it('a duplicate while the first is still in flight gets 409', async () => {
    // hold the first request's write open until the duplicate has been answered
    const store = t.sandbox.store;
    const commit = store.commit.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    store.commit = async (ops) => {
      await gate;
      return commit(ops);
    };
    const headers = { 'idempotency-key': 'k-409' };
    try {
      const first = t.request('POST', '/v1/forms', { body: form('Race'), headers });
      await new Promise((resolve) => setImmediate(resolve));
      const second = await t.request('POST', '/v1/forms', { body: form('Race'), headers });
      expect(second.statusCode).toBe(409);
      expect(second.json().error).toMatch(/in progress/);
      release();
      expect((await first).statusCode).toBe(201);
    } finally {
      release(); // the other tests share this store
      store.commit = commit;
    }
    expect((await t.request('POST', '/v1/forms', { body: form('Race'), headers })).headers['idempotent-replayed']).toBe('true');
  });

  it('keys are per workspace and kept 24 h on the sandbox clock', async () => {
    const headers = { 'idempotency-key': 'shared' };
    const live = await t.request('POST', '/v1/forms', { body: form('X'), headers, key: KEYS.liveFull });
    const sbx = await t.request('POST', '/v1/forms', { body: form('X'), headers, key: KEYS.sandboxFull });
    expect(sbx.headers['idempotent-replayed']).toBeUndefined();
    expect(sbx.json().id).not.toBe(live.json().id);
    await t.sandbox.clock.advance(24 * 3600_000 - 1);
    expect((await t.request('POST', '/v1/forms', { body: form('X'), headers })).headers['idempotent-replayed']).toBe('true');
    await t.sandbox.clock.advance(1);
    const fresh = await t.request('POST', '/v1/forms', { body: form('X'), headers });
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.json().id).not.toBe(live.json().id);
  });

  it('a request refused by validation saves nothing, so a corrected retry with the same key works', async () => {
    const headers = { 'idempotency-key': 'fix-me' };
    expect((await t.request('POST', '/v1/forms', { body: { fields: [] }, headers })).statusCode).toBe(400);
    expect((await t.request('POST', '/v1/forms', { body: form('Fixed'), headers })).statusCode).toBe(201);
  });

  it('any key of 1 to 1,024 characters is kept; past 255 with an INFERRED_LIMIT warning (the API description says "any unique string"); an empty or a 1,025-character key gets 400 and stores nothing', async () => {
    const keys = ['k', 'k'.repeat(255), 'k'.repeat(256)];
    for (const key of keys) {
      const res = await t.request('POST', '/v1/forms', { body: form(`ok ${key.length}`), headers: { 'idempotency-key': key } });
      expect(res.statusCode).toBe(201);
      expect(res.headers['x-sandbox-warning']).toBe(
        key.length > 255
          ? 'INFERRED_LIMIT: Idempotency-Key is 256 characters, the sandbox infers at most 255 (the API description says "any unique string")'
          : undefined,
      );
    }
    expect(keys.map(saved)).toEqual([true, true, true]);
    for (const [key, error] of [
      ['', /1 to 255 characters/],
      ['k'.repeat(1025), /at most 1024 characters/],
    ] as const) {
      const res = await t.request('POST', '/v1/forms', { body: form(`refused ${key.length}`), headers: { 'idempotency-key': key } });
      expect(res.statusCode, `a key of ${key.length} characters`).toBe(400);
      expect(res.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_INVALID', error: expect.stringMatching(error) });
      expect(saved(key)).toBe(false);
    }
  });

  it('under --strict a 256-character key is refused with the inferred rule as its reason, and nothing is written', async () => {
    const strict = await testSandbox({ enforceRateLimits: false, strict: true });
    try {
      const res = await strict.request('POST', '/v1/forms', { body: form('strict'), headers: { 'idempotency-key': 'k'.repeat(256) } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: 'Idempotency-Key must be 1 to 255 characters', code: 'IDEMPOTENCY_KEY_INVALID' });
      expect(res.headers['x-sandbox-reason']).toMatch(/^INFERRED_LIMIT Idempotency-Key is 256 characters; .*\(refused under --strict\)$/);
      expect(strict.sandbox.store.list('idempotency', strict.liveWorkspaceId)).toHaveLength(0);
      expect(strict.sandbox.store.list('forms', strict.liveWorkspaceId).some((f) => (f as { name?: string }).name === 'strict')).toBe(false);
    } finally {
      await strict.sandbox.stop();
    }
  });
});

describe('the idempotency purge service (src/core/idempotency-purge.ts)', () => {
  it('deletes expired records on the sandbox clock, within an hour of their expiry', async () => {
    await t.request('POST', '/v1/forms', { body: form('Swept'), headers: { 'idempotency-key': 'k-purge' } });
    expect(saved('k-purge')).toBe(true);
    await t.sandbox.clock.advance(24 * 3_600_000 - 1); // still within retention: kept
    expect(saved('k-purge')).toBe(true);
    await t.sandbox.clock.advance(3_600_000); // expired, and the hourly sweep has run since
    expect(saved('k-purge')).toBe(false);
  });

  it('saved outcomes are sandbox bookkeeping: not in the workspace export, not copied into a created workspace', async () => {
    const first = await t.request('POST', '/v1/forms', { body: form('Kept aside'), headers: { 'idempotency-key': 'k-internal' } });
    expect(first.statusCode).toBe(201);
    expect(saved('k-internal')).toBe(true);
    const exported = (await t.request('GET', `/__sandbox/workspaces/${t.liveWorkspaceId}/export`, { key: null })).json().data;
    expect(Object.keys(exported)).not.toContain('idempotency');
    expect(Object.keys(exported)).toContain('forms');
    const made = await t.request('POST', '/__sandbox/workspaces', { key: null, body: { name: 'copy', templateId: t.liveWorkspaceId } });
    expect(made.statusCode, made.body).toBe(201);
    const { id, keys } = made.json().data as { id: string; keys: { key: string }[] };
    expect(t.sandbox.store.list('idempotency', id)).toHaveLength(0);
    const again = await t.request('POST', '/v1/forms', { key: keys[0]!.key, body: form('Kept aside'), headers: { 'idempotency-key': 'k-internal' } });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a state import checks saved outcomes like any row, and a good one replays after it', async () => {
    const headers = { 'idempotency-key': 'k-import' };
    const first = await t.request('POST', '/v1/forms', { body: form('Imported'), headers });
    const state = (await t.request('GET', '/__sandbox/state', { key: null })).json();
    const rows = state.collections.idempotency[t.liveWorkspaceId];
    expect(rows['k-import']).toMatchObject({ id: 'k-import', method: 'POST', path: '/v1/forms', statusCode: 201 });
    const put = (body: unknown) =>
      t.request('PUT', '/__sandbox/state', { key: null, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    const bad = structuredClone(state);
    bad.collections.idempotency[t.liveWorkspaceId]['k-import'].statusCode = 'created';
    const refused = await put(bad);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details[0].message).toMatch(new RegExp(`^idempotency row "k-import" \\(workspace ${t.liveWorkspaceId}\\): statusCode: `));
    expect((await put(state)).statusCode).toBe(200);
    const again = await t.request('POST', '/v1/forms', { body: form('Imported'), headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });
});

describe('a replayed refusal says why (X-Sandbox-Reason)', () => {
  it("a retry that replays a saved 404 carries the first answer's reason, marked as a replay", async () => {
    const headers = { 'idempotency-key': 'book-missing-departure' };
    const body = { departureId: 'dept_00000000-0000-4000-8000-000000000000', adults: 1 };
    const first = await t.request('POST', '/v1/bookings', { body, headers });
    expect(first.statusCode).toBe(404);
    const firstReason = first.headers['x-sandbox-reason'] as string;
    expect(firstReason).toMatch(/^NOT_FOUND /);
    const again = await t.request('POST', '/v1/bookings', { body, headers });
    expect(again.statusCode).toBe(404);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers['x-sandbox-reason']).toMatch(/^NOT_FOUND replayed the first answer to this Idempotency-Key \(\d{4}-\d\d-\d\dT[\d:.]+Z\): /);
    // the saved body's message (the first sentence itself is not saved with the outcome)
    expect(again.headers['x-sandbox-reason']).toContain(first.json().error);
    const [logged] = (await t.request('GET', '/__sandbox/requests?limit=1', { key: null })).json().data;
    expect(logged.reason).toBe(again.headers['x-sandbox-reason']);
  });

  it('a replayed success has no reason', async () => {
    const headers = { 'idempotency-key': 'form-ok' };
    await t.request('POST', '/v1/forms', { body: form('Fine'), headers });
    const again = await t.request('POST', '/v1/forms', { body: form('Fine'), headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['x-sandbox-reason']).toBeUndefined();
  });
});
