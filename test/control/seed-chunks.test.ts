import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { carriedSeedState, seedWorkspace, type SeedProgress } from '../../src/control/seed.ts';
import { SeedState } from '../../src/control/seed-state.ts';
import type { Booking } from '../../src/resources/bookings/schemas.ts';
import type { Departure } from '../../src/resources/departures/schemas.ts';
import { runCli } from '../helpers/cli.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { useSandbox } from '../cli/commands/harness.ts';

/** A large seed works in chunks, yields between them, and shows progress. */
let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
});

describe('seeding in chunks', () => {
  it('answers other requests while a seed runs, and reports progress chunk by chunk', async () => {
    t = await testSandbox();
    const ctx = t.sandbox.context;
    await seedWorkspace(ctx, { workspaceId: t.liveWorkspaceId, products: 1, bookings: 1 }); // loads faker first
    await ctx.controlPlane.ready(); // and builds the control plane's app (on first use otherwise)
    const order: string[] = [];
    const progress: SeedProgress[] = [];
    const seeding = seedWorkspace(ctx, { workspaceId: t.liveWorkspaceId, products: 100, bookings: 1000, seed: 3 }, (p) => progress.push(p)).then((r) => {
      order.push('seed');
      return r;
    });
    const health = t.request('GET', '/__sandbox/health', { key: null }).then((r) => {
      order.push('health');
      return r;
    });
    const [result, answered] = await Promise.all([seeding, health]);
    expect(answered.statusCode).toBe(200);
    expect(order).toEqual(['health', 'seed']);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.at(-1)).toEqual({ products: 100, bookings: 1000, totalProducts: 100, totalBookings: 1000 });
    expect(result.created).toMatchObject({ products: 100, bookings: 1000 });
  });
});

describe('chunked seeding stays deterministic', () => {
  it('the same seed on the same data gives the same rows over several chunks', async () => {
    t = await testSandbox();
    const control = (method: string, path: string, body?: unknown) => t!.request(method, `/__sandbox${path}`, { key: null, body });
    await control('POST', '/snapshots', { name: 'before' });
    const bookingIds = async () =>
      t!.sandbox.store
        .list<{ id: string }>('bookings', t!.liveWorkspaceId)
        .map((b) => b.id)
        .sort();
    let chunks = 0;
    await seedWorkspace(t.sandbox.context, { workspaceId: t.liveWorkspaceId, products: 20, bookings: 300, seed: 9 }, () => (chunks += 1));
    const first = await bookingIds();
    await control('POST', '/snapshots/before/restore');
    await seedWorkspace(t.sandbox.context, { workspaceId: t.liveWorkspaceId, products: 20, bookings: 300, seed: 9 });
    expect(chunks).toBeGreaterThan(2);
    expect(await bookingIds()).toEqual(first);
  });
});

describe('the generation state carried from chunk to chunk', () => {
  const digest = (t: TestSandbox) => createHash('sha256').update(JSON.stringify(t.sandbox.store.exportCollections())).digest('hex');
  const rows = <T>(t: TestSandbox, name: string) => t.sandbox.store.list<T & { id: string }>(name, t.liveWorkspaceId);

  it('gives the same rows as deriving it afresh from the workspace for every chunk', async () => {
    const run = async (rederive: boolean) => {
      const sandbox = await testSandbox();
      const store = sandbox.sandbox.store;
      // putting a product back unchanged is a write by someone else: the next chunk derives the state again
      const touch = () => {
        const product = rows<{ id: string }>(sandbox, 'products')[0]!;
        void store.commit([{ type: 'put', collection: 'products', workspaceId: sandbox.liveWorkspaceId, row: product }]);
      };
      let chunks = 0;
      // two runs: the state also carries from one POST /seed to the next
      await seedWorkspace(sandbox.sandbox.context, { workspaceId: sandbox.liveWorkspaceId, products: 30, bookings: 900, seed: 21 }, () => {
        chunks++;
        if (rederive) touch();
      });
      await seedWorkspace(sandbox.sandbox.context, { workspaceId: sandbox.liveWorkspaceId, bookings: 1200, seed: 22 }, () => rederive && touch());
      // the seats left it keeps as slots change (capacityTopUp) are a fresh count's
      const state = carriedSeedState(store);
      if (state) expect(state.openSeats).toBe(SeedState.build(store, sandbox.liveWorkspaceId, state.anchorDayMs).openSeats);
      const result = { chunks, digest: digest(sandbox), bookings: rows(sandbox, 'bookings').length, checkedSeats: state !== undefined };
      await sandbox.sandbox.stop();
      return result;
    };
    const carried = await run(false);
    const rederived = await run(true);
    expect(carried.chunks).toBeGreaterThan(5);
    expect(carried.bookings).toBeGreaterThan(2100);
    expect(carried.digest).toBe(rederived.digest);
    expect(carried.checkedSeats).toBe(true);
  });

  it('sees what others write between chunks: a departure cancelled meanwhile stays cancelled and gets no new bookings', async () => {
    t = await testSandbox();
    const store = t.sandbox.store;
    const ws = t.liveWorkspaceId;
    const tomorrow = new Date(t.sandbox.context.clock.now() + 86_400_000).toISOString().slice(0, 10);
    const open = rows<Departure>(t, 'departures').filter((d) => d.status === 'scheduled' && d.startDate >= tomorrow);
    expect(open.length).toBeGreaterThan(0);
    let cancelledAfter: Set<string> | null = null;
    await seedWorkspace(t.sandbox.context, { workspaceId: ws, products: 0, bookings: 600, seed: 5 }, () => {
      if (cancelledAfter) return;
      // after the first chunk, an operator cancels every bookable departure there was
      void store.commit(
        open.map((d) => ({
          type: 'put' as const,
          collection: 'departures',
          workspaceId: ws,
          row: { ...store.get<Departure>('departures', ws, d.id)!, status: 'cancelled' },
        })),
      );
      cancelledAfter = new Set(rows<{ id: string }>(t!, 'bookings').map((b) => b.id));
    });
    const ids = new Set(open.map((d) => d.id));
    for (const d of rows<Departure>(t, 'departures')) if (ids.has(d.id)) expect(d.status).toBe('cancelled');
    const later = rows<Booking>(t, 'bookings').filter((b) => !cancelledAfter!.has(b.id));
    expect(later.length).toBeGreaterThan(0);
    expect(later.filter((b) => ids.has(b.departureId!))).toEqual([]);
  });
});

describe('sandbox seed progress', () => {
  const s = useSandbox();
  it('prints plain progress lines on stderr when it is not a terminal, and the total once', async () => {
    // Aurora: the default workspace (Borealis) is the next test's, whose seats must stay few
    const r = await s.cli(['seed', '--products', '100', '--bookings', '1000', '--workspace', 'Aurora Tours']);
    expect(r.code).toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines.length).toBe(20);
    expect(lines[0]).toMatch(/^seeding: 5% \(5\/100 products, 50\/1000 bookings\)$/);
    expect(lines.at(-1)).toBe('seeding: 100% (100/100 products, 1000/1000 bookings)');
    expect(r.stdout).toMatch(/^Seeded Aurora Tours \(seed \d+\) in [\d.]+ ms: 100 products, .*1000 bookings/);
    const small = await runCli(['seed', '--products', '1', '--bookings', '5', '--url', s.sandbox.url]).exit;
    expect(small.stderr).toBe('');
  });

  it('makes exactly the bookings asked on a workspace whose departures would sell out, adding products for the seats (not "created 1,100 of 5,000")', async () => {
    const sandboxWs = s.sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
    const store = s.sandbox.store;
    const seatsOpen = () =>
      store
        .list<Departure>('departures', sandboxWs.id)
        .filter((d) => d.status === 'scheduled' || d.status === 'guaranteed')
        .reduce((n, d) => n + d.seatsLeft, 0);
    expect(seatsOpen()).toBeLessThan(3000); // 3,000 bookings of 1-6 travellers would sell it out
    const before = store.list('bookings', sandboxWs.id).length;
    const r = await s.cli(['seed', '--workspace', sandboxWs.id, '--bookings', '3000', '--json']);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout) as { created: Record<string, number>; requested: Record<string, number>; shortfall?: string };
    expect(store.list('bookings', sandboxWs.id).length - before).toBe(3000);
    expect(result).toMatchObject({ requested: { products: 0, bookings: 3000 }, created: { bookings: 3000 } });
    expect(result.created.products).toBeGreaterThan(0); // added for the seats
    expect(result.shortfall).toBeUndefined();
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      new RegExp(`^seeding: 100% \\(${result.created.products} products added for seats, 3000/3000 bookings\\)$`),
    );
    const again = await s.cli(['seed', '--workspace', sandboxWs.id, '--bookings', '10', '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ created: { bookings: 10 }, requested: { products: 0, bookings: 10 } });
  });
});
