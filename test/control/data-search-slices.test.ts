import { afterEach, describe, expect, it } from 'vitest';
import { dataPage, SEARCH_SLICE } from '../../src/control/data.ts';
import { openStore } from '../../src/storage/index.ts';
import { allowPacking } from '../../src/storage/collection.ts';
import { DEFAULT_PACK_LIMITS, setPackLimits } from '../../src/storage/large-files/index.ts';

/**
 * The data inspector's `q` over a large packed partition: the search walks a copy of the
 * partition in slices, so other work goes on meanwhile, and what is written meanwhile neither breaks
 * the walk nor shows up in it.
 */
const slice = SEARCH_SLICE.ms;
afterEach(() => {
  SEARCH_SLICE.ms = slice;
  setPackLimits(DEFAULT_PACK_LIMITS);
});
allowPacking('searchedItems');
const put = (id: string, note: string) => ({ type: 'put' as const, collection: 'searchedItems', workspaceId: 'ws', row: { id, note } });

describe('a data search over a packed partition', () => {
  it('pauses between pages, and answers from the partition as it was when it started', async () => {
    setPackLimits({ packAfter: 64, hotRows: 16, pageBytes: 256 });
    SEARCH_SLICE.ms = 0;
    const { store } = await openStore();
    await store.commit(Array.from({ length: 2_000 }, (_, i) => put(`r${i}`, i % 400 === 7 ? 'needle here' : `plain ${i}`)));
    let done = false;
    const searching = dataPage(store, 'searchedItems', 'ws', { limit: 100, offset: 0, q: 'NEEDLE' }).finally(() => (done = true));
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      // rows written while it searches: new ones past the hot rows pack pages, changed ones fold back
      await store.commit([put(`n${i}`, 'needle too'), put(`r${i * 50}`, 'changed')]);
      expect(done).toBe(false); // still searching: it let these writes in
    }
    const page = await searching;
    expect(page.rows.map((row) => row.id)).toEqual(['r7', 'r407', 'r807', 'r1207', 'r1607']);
    expect(page.total).toBe(5);
    // a search started now sees the writes
    expect((await dataPage(store, 'searchedItems', 'ws', { limit: 100, offset: 0, q: 'needle' })).total).toBe(25);
  });
});
