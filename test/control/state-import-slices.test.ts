import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { importSlicing } from '../../src/control/state-reader.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * The body of PUT /__sandbox/state is read a row at a time (parsed and
 * checked in one go, 243 MB held /v1 for up to 6.9 s of 18 s), giving the event loop a turn every few milliseconds or
 * `importSlicing.rows` rows. Set low here, so that the fixture state alone
 * makes hundreds of slices: no timing is asserted, only the order of answers.
 */
let t: TestSandbox;
const defaults = { ...importSlicing };
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());
afterEach(() => {
  importSlicing.rows = defaults.rows;
});

type State = { schemaVersion: number; collections: Record<string, Record<string, Record<string, Record<string, unknown>>>> };
const exported = async () => JSON.parse((await t.request('GET', '/__sandbox/state', { key: null })).body) as State;
const put = (state: State) =>
  t.request('PUT', '/__sandbox/state', { key: null, payload: JSON.stringify(state), headers: { 'content-type': 'application/json' } });
const liveWs = () => t.liveWorkspaceId;

/** Turns of the event loop until `done()`, at most `turns` (an import that never gives way fails the test, not hangs it). */
async function turnsUntil(done: () => boolean, turns = 10_000): Promise<boolean> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  return done();
}

describe('PUT /__sandbox/state gives way to other requests', () => {
  it('a /v1 request sent while an import is under way is answered, from the state before it, before the import answers', async () => {
    importSlicing.rows = 10;
    const state = await exported();
    const rows = Object.values(state.collections).reduce((n, partitions) => n + Object.values(partitions).reduce((m, r) => m + Object.keys(r).length, 0), 0);
    expect(rows).toBeGreaterThan(500); // many slices of 10 rows
    const form = (await t.request('POST', '/v1/forms', { body: { name: 'written after the export', fields: [] } })).json() as { id: string };
    const formsBefore = (await t.request('GET', `/__sandbox/workspaces/${liveWs()}/export`, { key: null })).json().data.forms.length as number;

    let importAnswered = false;
    const importing = put(state).then((res) => {
      importAnswered = true;
      return res;
    });
    const slicesBefore = importSlicing.slices;
    expect(await turnsUntil(() => importSlicing.slices > slicesBefore)).toBe(true); // the walk has begun and given way once
    const read = await t.request('GET', '/v1/products?limit=1');
    expect(read.statusCode).toBe(200);
    const during = (await t.request('GET', `/__sandbox/workspaces/${liveWs()}/export`, { key: null })).json().data.forms as { id: string }[];
    expect(importAnswered).toBe(false);
    expect(during).toHaveLength(formsBefore); // nothing replaced until the whole body is checked
    expect(during.map((f) => f.id)).toContain(form.id);

    const res = await importing;
    expect(res.statusCode).toBe(200);
    const after = (await t.request('GET', `/__sandbox/workspaces/${liveWs()}/export`, { key: null })).json().data.forms as { id: string }[];
    expect(after.map((f) => f.id)).not.toContain(form.id);
  });

  it('a bad row found after hundreds of slices is refused in one line, and nothing is replaced', async () => {
    importSlicing.rows = 10;
    const state = await exported();
    const marker = (await t.request('POST', '/v1/forms', { body: { name: 'kept', fields: [] } })).json() as { id: string };
    // the last collection's last partition: every row before it is read, in slices, first
    const names = Object.keys(state.collections);
    const last = state.collections[names.at(-1)!]!;
    const partition = last[Object.keys(last).at(-1)!]!;
    partition.zzz_bad = { id: 'zzz_bad', garbage: true };
    const slicesBefore = importSlicing.slices;
    const res = await put(state);
    expect(importSlicing.slices - slicesBefore).toBeGreaterThan(50);
    expect(res.statusCode).toBe(400);
    const body = res.json() as { code: string; details: { message: string }[] };
    expect(body.code).toBe('VALIDATION_400');
    expect(body.details).toHaveLength(1);
    expect(body.details[0]!.message).toMatch(new RegExp(`^${names.at(-1)} row "zzz_bad" \\(workspace [^)]+\\): `));
    expect(body.details[0]!.message).not.toContain('\n');
    const forms = (await t.request('GET', `/__sandbox/workspaces/${liveWs()}/export`, { key: null })).json().data.forms as { id: string }[];
    expect(forms.map((f) => f.id)).toContain(marker.id);
  });

  it('refuses a body that is not JSON past its first rows, naming where, and replaces nothing', async () => {
    const state = await exported();
    const text = JSON.stringify(state);
    const res = await t.request('PUT', '/__sandbox/state', { key: null, payload: `${text.slice(0, -40)}}}}`, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'MALFORMED_JSON' });
    expect(String(res.headers['x-sandbox-reason'])).toMatch(/^MALFORMED_JSON .* at byte \d+ of the body$/);
  });
});
