/**
 * The store with packed partitions (src/storage/large-files/packed-rows.ts) gives what it
 * gives without them: the same API answers over seeded bookings, the same
 * file after compaction and reopening. Limits are set tiny so that every
 * collection with more than a few rows is packed.
 */
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { propertyRuns } from '../setup/depth.ts';
import { seedWorkspace } from '../../src/control/seed.ts';
import { createSandbox } from '../../src/sandbox.ts';
import { openStore } from '../../src/storage/index.ts';
import { allowPacking } from '../../src/storage/collection.ts';
import { DEFAULT_PACK_LIMITS, setPackLimits } from '../../src/storage/large-files/index.ts';
import { booking, del, put, tempDir } from './helpers.ts';

const TINY = { packAfter: 8, hotRows: 4, pageBytes: 600 };
const AUTH = { authorization: 'Bearer tcs_live_aurora_full_0000000000000000000001' };

afterEach(() => setPackLimits(DEFAULT_PACK_LIMITS));
allowPacking('bookings'); // the store tests' collection; the API test packs what the areas declare

/** Seeds bookings in a fresh in-memory sandbox, then reads them back through the API. */
async function seedAndRead(): Promise<{ answers: string[]; packed: boolean }> {
  const sandbox = await createSandbox({ storage: 'memory', listen: false, clock: 'manual' });
  try {
    const ws = sandbox.workspaces.find((w) => w.mode === 'live')!.id;
    await seedWorkspace(sandbox.context, { workspaceId: ws, bookings: 60, products: 2 });
    const answers: string[] = [];
    const page = await sandbox.app.inject({ method: 'GET', url: '/v1/bookings?limit=100', headers: AUTH });
    expect(page.statusCode).toBe(200);
    answers.push(page.body);
    for (const { id } of page.json().data as { id: string }[]) {
      const one = await sandbox.app.inject({ method: 'GET', url: `/v1/bookings/${id}`, headers: AUTH });
      answers.push(`${one.statusCode} ${one.body}`);
    }
    // a change to a row that was packed, then a read of it
    const first = (page.json().data as { id: string }[]).at(-1)!.id;
    const patched = await sandbox.app.inject({ method: 'PATCH', url: `/v1/bookings/${first}`, headers: AUTH, payload: { notes: 'moved' } });
    answers.push(`${patched.statusCode} ${patched.body}`);
    answers.push((await sandbox.app.inject({ method: 'GET', url: `/v1/bookings/${first}`, headers: AUTH })).body);
    return { answers, packed: !Array.isArray(sandbox.store.scan('passengers', ws)) };
  } finally {
    await sandbox.stop();
  }
}

describe('packed partitions', () => {
  it("take a put's row as its JSON copy, without sharing its small values: it is packed soon", async () => {
    setPackLimits(TINY);
    const { store } = await openStore();
    try {
      await store.commit([put('bookings', 'ws_1', { id: 'small', meta: {} })]);
      const small = store.get<{ id: string; meta: object }>('bookings', 'ws_1', 'small')!;
      expect(Object.isFrozen(small.meta)).toBe(true); // shared (shared-leaves.ts)
      for (let i = 0; i < 10; i++) await store.commit([put('bookings', 'ws_1', { id: `b${i}`, meta: {} })]);
      await store.commit([put('bookings', 'ws_1', { id: 'late', meta: {} })]);
      const late = store.get<{ id: string; meta: object }>('bookings', 'ws_1', 'late')!;
      expect(late).toEqual({ id: 'late', meta: {} });
      expect(Object.isFrozen(late.meta)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('answer the API exactly as unpacked ones do', async () => {
    const plain = await seedAndRead();
    setPackLimits(TINY);
    const packed = await seedAndRead();
    expect(plain.packed).toBe(false);
    expect(packed.packed).toBe(true);
    expect(packed.answers.length).toBeGreaterThan(20);
    expect(packed.answers).toEqual(plain.answers);
  });

  it('write, compact and reopen to the same rows as unpacked ones', async () => {
    const run = async (dir: string) => {
      const path = join(dir, 'db.json');
      const { store } = await openStore({ path, compactAfterCommits: 7 });
      for (let i = 0; i < 120; i++) {
        const ops = [put('bookings', 'ws_1', booking(`book_${i % 50}`, { round: i }))];
        if (i % 9 === 0) ops.push(del('bookings', 'ws_1', `book_${(i * 7) % 50}`));
        await store.commit(ops);
      }
      const before = store.exportCollections();
      await store.close();
      const reopened = await openStore({ path });
      const after = reopened.store.exportCollections();
      const list = reopened.store.list('bookings', 'ws_1').map((row) => row.id);
      await reopened.store.close();
      return { before, after, list };
    };
    const plain = await run(tempDir());
    setPackLimits(TINY);
    const packed = await run(tempDir());
    expect(packed.before).toEqual(plain.before);
    expect(packed.after).toEqual(plain.after);
    expect(JSON.stringify(packed.after)).toBe(JSON.stringify(plain.after)); // and the same key order
    expect(packed.list).toEqual(plain.list);
  });

  it('list() after writes is what the rows are, whether its weakly held list was patched or rebuilt', async () => {
    setPackLimits(TINY);
    const op = fc.oneof(
      fc.record({ kind: fc.constant('put' as const), id: fc.integer({ min: 0, max: 30 }), round: fc.integer({ min: 0, max: 99 }) }),
      fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 0, max: 30 }) }),
      fc.record({ kind: fc.constant('list' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 150 }), async (steps) => {
        const { store } = await openStore({});
        const model = new Map<string, unknown>();
        for (const step of steps) {
          if (step.kind === 'list') {
            expect(store.list('bookings', 'ws_1')).toEqual([...model.values()]);
          } else if (step.kind === 'put') {
            const row = booking(`book_${step.id}`, { round: step.round });
            model.set(row.id, row);
            await store.commit([put('bookings', 'ws_1', row)]);
          } else {
            model.delete(`book_${step.id}`);
            await store.commit([del('bookings', 'ws_1', `book_${step.id}`)]);
          }
        }
        expect(store.list('bookings', 'ws_1')).toEqual([...model.values()]);
        expect([...store.scan('bookings', 'ws_1')]).toEqual([...model.values()]);
        await store.close();
      }),
      { numRuns: propertyRuns(150) },
    );
  });

  it('are packed only beyond the threshold', async () => {
    setPackLimits(TINY);
    const { store } = await openStore({});
    for (let i = 0; i < TINY.packAfter; i++) await store.commit([put('bookings', 'ws_1', booking(`book_${i}`))]);
    expect(Array.isArray(store.scan('bookings', 'ws_1'))).toBe(true);
    await store.commit([put('bookings', 'ws_1', booking('book_last'))]);
    expect(Array.isArray(store.scan('bookings', 'ws_1'))).toBe(false);
    expect(store.count('bookings', 'ws_1')).toBe(TINY.packAfter + 1);
    expect([...store.scan('bookings', 'ws_1')].map((row) => row.id).at(-1)).toBe('book_last');
    await store.close();
  });
});
