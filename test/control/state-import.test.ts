import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stateImportProblem } from '../../src/control/state-import.ts';
import { COLLECTION_REGISTRY } from '../../src/resources/index.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { expectOneLineFailure, useSandbox } from '../cli/commands/harness.ts';

/**
 * An imported state is checked row by row: a bookings partition holding
 * {"bad": {"id": "bad", "garbage": true}} is refused, not imported and then
 * served by GET /v1/bookings; so is an unknown collection; a row whose id
 * differs from its key is a 400 that says so, not a 500 INTERNAL_ERROR.
 */
const t = useSandbox();

interface State {
  schemaVersion: number;
  seq: number;
  collections: Record<string, Record<string, Record<string, Record<string, unknown>>>>;
}
const exportedText = async (): Promise<string> => (await fetch(`${t.sandbox.url}/__sandbox/state`)).text();
const exported = async (): Promise<State> => JSON.parse(await exportedText()) as State;
const put = (state: unknown) =>
  fetch(`${t.sandbox.url}/__sandbox/state`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(state) });
const liveWs = () => t.sandbox.workspaces.find((w) => w.mode === 'live')!.id;
const bookingIds = async () => {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await t.api('GET', `/v1/bookings?limit=100${cursor ? `&cursor=${cursor}` : ''}`, KEYS.liveFull);
    const page = (await res.json()) as { data: { id: string }[]; nextCursor?: string | null; pagination?: { nextCursor?: string | null } };
    ids.push(...page.data.map((b) => b.id));
    cursor = page.nextCursor ?? page.pagination?.nextCursor ?? null;
  } while (cursor);
  return ids;
};

/** A 400 VALIDATION_400 with one message, and the state as it was. */
async function expectRefused(state: State, message: RegExp): Promise<void> {
  const before = await exportedText();
  const res = await put(state);
  const body = (await res.json()) as { code: string; details: { message: string }[] };
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.code).toBe('VALIDATION_400');
  expect(body.details).toHaveLength(1);
  expect(body.details[0]!.message).toMatch(message);
  // the export's text, byte for byte (several MB: a deep comparison of the parsed states cost more than the import)
  const after = await exportedText();
  expect(after === before, 'the refused import changed the exported state').toBe(true);
}

describe('PUT /__sandbox/state checks every row', () => {
  it('refuses a booking row that is not a booking, naming the collection, the row and the field; GET /v1/bookings never serves it', async () => {
    const state = await exported();
    state.collections.bookings![liveWs()]!.bad = { id: 'bad', garbage: true };
    await expectRefused(state, /^bookings row "bad" \(workspace wksp_[\w-]+\): \w+: /);
    expect(await bookingIds()).not.toContain('bad');
  });

  it('refuses a field the record schema does not know, on an otherwise good row', async () => {
    const state = await exported();
    const [id, row] = Object.entries(state.collections.bookings![liveWs()]!)[0]!;
    row.garbage = true;
    await expectRefused(state, new RegExp(`^bookings row "${id}" \\(workspace wksp_[\\w-]+\\): garbage: not a field of a bookings row$`));
  });

  it('refuses an unknown collection, with the known one it was probably meant to be', async () => {
    const state = await exported();
    state.collections.bokings = state.collections.bookings!;
    await expectRefused(state, /^collection "bokings" is not one this sandbox knows \(did you mean "bookings"\?\)$/);
  });

  it('refuses a row whose id differs from its key with a 400 naming the row, not a 500', async () => {
    const state = await exported();
    const rows = state.collections.forms![liveWs()] ?? (state.collections.forms![liveWs()] = {});
    rows.frm_key = { ...(Object.values(rows)[0] ?? {}), id: 'frm_other' };
    await expectRefused(state, /^forms row "frm_key" \(workspace wksp_[\w-]+\): id: is "frm_other", but a row's id must equal the key it is stored under$/);
  });

  it('imports an export that holds workspaces on demand: overlay and base records, template rows, a tombstone', async () => {
    const created = await fetch(`${t.sandbox.url}/__sandbox/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const workspace = ((await created.json()) as { data: { id: string; keys: { key: string; scopes: string[] | null }[] } }).data;
    const key = workspace.keys.find((k) => k.scopes === null)!.key;
    const policies = ((await (await fetch(`${t.sandbox.url}/__sandbox/workspaces/${workspace.id}/export`)).json()) as { data: { policies: { id: string }[] } })
      .data.policies;
    expect((await t.api('DELETE', `/v1/policies/${policies[0]!.id}`, key)).status).toBeLessThan(300);
    const state = await exported();
    expect(JSON.stringify(state.collections)).toContain('"~deleted":true');
    const res = await put(state);
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await t.api('GET', `/v1/policies/${policies[0]!.id}`, key)).status).toBe(404);
    expect((await t.api('GET', `/v1/policies/${policies[1]!.id}`, key)).status).toBe(200);
  });

  it('refuses a tombstone in a fixture workspace (only a created workspace deletes by tombstone)', async () => {
    const state = await exported();
    state.collections.forms![liveWs()]!.frm_gone = { id: 'frm_gone', '~deleted': true };
    await expectRefused(state, /^forms row "frm_gone" \(workspace wksp_[\w-]+\): /);
  });

  it('imports its own export unchanged', async () => {
    const state = await exported();
    const res = await put(state);
    expect(res.status).toBe(200);
    expect((await exported()).collections).toEqual(state.collections);
  });
});

describe('sandbox snapshot import', () => {
  it('exits 1 with the one line that names the row, and changes nothing', async () => {
    const state = await exported();
    const rows = state.collections.forms![liveWs()]!;
    rows.frm_key = { ...Object.values(rows)[0], id: 'frm_other' };
    const file = join(await mkdtemp(join(tmpdir(), 'tcs-import-')), 'state.json');
    await writeFile(file, JSON.stringify(state));
    const line = expectOneLineFailure(await t.cli(['snapshot', 'import', file]));
    expect(line).toMatch(
      /^sandbox: .*state\.json cannot be imported: Validation failed: forms row "frm_key" \(workspace wksp_[\w-]+\): id: is "frm_other", but/,
    );
    expect((await exported()).collections.forms![liveWs()]!.frm_key).toBeUndefined();
  });
});

describe('stateImportProblem (what --watch checks a hand-edited file with)', () => {
  const registry = COLLECTION_REGISTRY;
  it('passes the whole fixture state, and names the first problem otherwise', async () => {
    const state = await exported();
    expect(stateImportProblem(state.collections, registry)).toBeNull();
    expect(stateImportProblem({ forms: { ws: { f: 1 } } }, registry)).toBe('forms row "f" (workspace ws): not an object');
    expect(stateImportProblem([], registry)).toMatch(/not an object/);
  });

  it('refuses a row nested deeper than a state may be, without overflowing the stack', () => {
    let deep: Record<string, unknown> = {};
    const row = { id: 'frm_x', deep };
    for (let i = 0; i < 50_000; i++) deep = deep.a = {};
    expect(stateImportProblem({ forms: { ws: { frm_x: row } } }, registry)).toMatch(
      /^forms row "frm_x" \(workspace ws\): deep\.a\.a\.a\[…\d+ levels…\]\.a\.a: nested deeper than 124 levels/,
    );
  });
});
