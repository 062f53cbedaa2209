import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SeedState } from '../../src/control/seed-state.ts';
import { RowSink } from '../../src/fixtures/context.ts';
import { BOOKINGS } from '../../src/resources/bookings/collections.ts';
import { PEOPLE } from '../../src/resources/people/collections.ts';
import { openStore } from '../../src/storage/index.ts';

/**
 * Memory at 100k bookings: the seeding state lives as long as the
 * store, so it must hold the store's committed rows, not the generator's
 * objects, or every seeded person is in memory twice.
 */
describe('SeedState after a chunk', () => {
  it("pools the store's copy of each new person, not the generator's object", async () => {
    const { store } = await openStore({});
    const ws = 'ws_1';
    const anchor = Date.UTC(2026, 0, 1);
    const state = SeedState.build(store, ws, anchor);
    const person = { id: 'ppl_1', email: 'Ada@example.com', dateOfBirth: '1980-01-01', firstName: 'Ada' } as never;
    const booking = { id: 'book_1', code: 'AUR-ABC123' } as never;
    const sink = new RowSink();
    sink.put(PEOPLE, ws, person);
    sink.put(BOOKINGS, ws, booking);
    state.emails.add('ada@example.com'); // as uniqueEmails / uniqueCodes do while the chunk is made
    state.codes.add('AUR-ABC123');
    await store.commit([
      { type: 'put', collection: PEOPLE.name, workspaceId: ws, row: person },
      { type: 'put', collection: BOOKINGS.name, workspaceId: ws, row: booking },
    ]);
    state.absorb(sink, [], []);
    const stored = store.get(PEOPLE.name, ws, 'ppl_1');
    expect(stored).not.toBe(person); // the store keeps a private copy
    expect(state.pools.adults).toHaveLength(1);
    expect(state.pools.adults[0]).toBe(stored);
    expect([...state.emails]).toEqual(['ada@example.com']);
    expect([...state.codes]).toEqual(['AUR-ABC123']);
    expect(state.counts).toMatchObject({ people: 1, bookings: 1 });
  });
});

/**
 * The carried state (~7 MiB at 100k bookings) is held strongly while
 * a run lasts and only weakly between runs (src/control/seed.ts), checked in a
 * child process run with --expose-gc.
 */
describe('the seeding state between runs', () => {
  it('is kept while a run lasts, and may be collected once it is over', () => {
    const script = fileURLToPath(new URL('./fixtures/seed-state-weak.ts', import.meta.url));
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ probed: true, lostDuringRun: false, keptAfterRun: false, first: true, second: true });
  });
});
