import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FieldIndex, onListenerError, openStore, type ListenerErrorHandler } from '../../src/storage/index.ts';
import { reportToConsole } from '../../src/storage/listener-errors.ts';
import { OverlayStore } from '../../src/storage/overlay-store.ts';
import { testSandbox } from '../helpers/sandbox.ts';

/**
 * A change listener that throws is a bug, reported in one
 * line naming the rows it choked on (src/storage/listener-errors.ts), and the
 * test setup turns it into a failure (test/setup/listener-errors.ts). Index
 * keys are total: a row without the indexed field is simply not indexed.
 */
let reported: string[];
let previous: ListenerErrorHandler;
beforeEach(() => {
  reported = [];
  previous = onListenerError((failure) => reported.push(failure.message));
});
afterEach(() => {
  onListenerError(previous);
});

const put = (collection: string, workspaceId: string, id: string) => ({ type: 'put' as const, collection, workspaceId, row: { id } });
const throwing = () => {
  throw new TypeError("Cannot read properties of undefined (reading 'toLowerCase')");
};

describe('a change listener that throws', () => {
  it('is reported in one line naming the collection, workspace and row id; the write stands and later listeners run', async () => {
    const { store } = await openStore();
    const seen: string[] = [];
    store.onChange(throwing);
    store.onChange(() => seen.push('after'));
    await store.commit([put('people', 'ws_1', 'ppl_marker')]);
    expect(store.get('people', 'ws_1', 'ppl_marker')).toEqual({ id: 'ppl_marker' });
    expect(seen).toEqual(['after']);
    expect(reported).toHaveLength(1);
    expect(reported[0]).not.toContain('\n');
    expect(reported[0]).toMatch(
      /^\[storage\] a change listener threw on put people ws_1\/ppl_marker: TypeError: Cannot read properties of undefined \(reading 'toLowerCase'\) \(at throwing \(.*listener-errors\.test\.ts:\d+:\d+\)\); the write is applied.*This is a bug in the listener$/,
    );
  });

  it('names the first rows of a large change and counts the rest; a delete by its id; a replacement as such', async () => {
    const { store } = await openStore();
    store.onChange(throwing);
    await store.commit([
      put('a', 'ws', '1'),
      put('b', 'ws', '2'),
      { type: 'delete', collection: 'c', workspaceId: 'ws', id: '3' },
      put('d', 'ws', '4'),
      put('e', 'ws', '5'),
    ]);
    expect(reported[0]).toContain('threw on put a ws/1, put b ws/2, delete c ws/3 and 2 more: TypeError');
    await store.replaceAll({});
    expect(reported[1]).toContain('threw on the replacement of the whole store (reset, restore, import or a hand edit): TypeError');
  });

  it('is reported by the overlay store too (the store a sandbox runs on)', async () => {
    const { store: engine } = await openStore();
    const store = new OverlayStore(engine);
    store.onChange(throwing);
    await store.commit([put('people', 'ws_2', 'ppl_x')]);
    expect(reported).toEqual([expect.stringContaining('threw on put people ws_2/ppl_x: TypeError')]);
  });

  it('goes to stderr in one line by default', async () => {
    onListenerError(reportToConsole);
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const { store } = await openStore();
      store.onChange(() => {
        throw 'not an Error';
      });
      await store.commit([put('forms', 'ws', 'frm_1')]);
      expect(errors.mock.calls).toEqual([
        [expect.stringMatching(/^\[storage\] a change listener threw on put forms ws\/frm_1: not an Error; the write is applied/)],
      ]);
    } finally {
      errors.mockRestore();
    }
  });
});

describe('index keys over rows without the field', () => {
  it('a person without an email is not in the email index, and nothing throws (test/sandbox.test.ts, "a database file is reused")', async () => {
    const t = await testSandbox();
    try {
      const ws = t.liveWorkspaceId;
      const emails = FieldIndex.of(t.sandbox.store, 'people', 'email', () => null); // the people service's own (shared by name)
      const created = await t.request('POST', `/__sandbox/workspaces/${ws}/people`, {
        key: null,
        body: { firstName: 'Ada', lastName: 'Lovelace', email: 'Ada@Example.org' },
      });
      expect(created.statusCode, created.body).toBe(201);
      const filed = emails.filedIds(ws);
      expect(filed).toBeGreaterThan(0);
      await t.sandbox.store.commit([{ type: 'put', collection: 'people', workspaceId: ws, row: { id: 'ppl_marker', firstName: 'Kept' } }]);
      expect(reported).toEqual([]);
      expect(emails.filedIds(ws)).toBe(filed);
      expect(emails.rows(ws, 'undefined')).toEqual([]);
      expect(emails.rows(ws, 'ada@example.org').map((p) => p.id)).toEqual([created.json().data.id]);
      // the index still answers: a duplicate is a 409, a new address a 201
      const again = await t.request('POST', `/__sandbox/workspaces/${ws}/people`, {
        key: null,
        body: { firstName: 'Ada', lastName: 'L', email: 'ada@example.org' },
      });
      expect(again.statusCode).toBe(409);
      expect(
        (await t.request('POST', `/__sandbox/workspaces/${ws}/people`, { key: null, body: { firstName: 'B', lastName: 'C', email: 'b@example.org' } }))
          .statusCode,
      ).toBe(201);
      expect(reported).toEqual([]);
    } finally {
      await t.sandbox.stop();
    }
  });

  it('every resource index leaves out a row missing its fields: bookings, passengers, items, forms, verifications, gallery folders', async () => {
    const t = await testSandbox();
    try {
      const ws = t.liveWorkspaceId;
      const collections = ['bookings', 'passengers', 'bookingItems', 'forms', 'verifications', 'galleryFolders'];
      await t.sandbox.store.commit(collections.map((collection, i) => ({ type: 'put' as const, collection, workspaceId: ws, row: { id: `bare_${i}` } })));
      expect(reported).toEqual([]);
      // the API still reads them: a list and a search over bookings walk every index a booking has
      expect((await t.request('GET', '/v1/bookings?limit=5')).statusCode).toBe(200);
      expect((await t.request('GET', '/v1/bookings?q=zz&limit=5')).statusCode).toBe(200);
      expect(reported).toEqual([]);
    } finally {
      await t.sandbox.stop();
    }
  });
});
