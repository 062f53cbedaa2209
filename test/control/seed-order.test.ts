import { afterEach, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../../src/control/seed.ts';
import type { Booking } from '../../src/resources/bookings/schemas.ts';
import type { Departure } from '../../src/resources/departures/schemas.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * A seed run writes its bookings in the order they were made (the last 30 days, chunk
 * after chunk), so that a page of `GET /v1/bookings` reads rows that sit together in the store,
 * and every booking is made after its departure was created and before now.
 */
let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
});

describe('a seed run', () => {
  it('writes its bookings in date order, within the last 30 days, each after its departure was created', async () => {
    t = await testSandbox();
    const ws = t.liveWorkspaceId;
    const before = new Set(t.sandbox.store.list<Booking>('bookings', ws).map((b) => b.id));
    await seedWorkspace(t.sandbox.context, { workspaceId: ws, products: 10, bookings: 600, seed: 4 });
    const now = t.sandbox.context.clock.now();
    const made = t.sandbox.store.list<Booking>('bookings', ws).filter((b) => !before.has(b.id));
    expect(made).toHaveLength(600);
    const departures = new Map(t.sandbox.store.list<Departure>('departures', ws).map((d) => [d.id, d]));
    const times = made.map((b) => Date.parse(b.createdAt));
    for (const [i, b] of made.entries()) {
      expect(times[i]!).toBeGreaterThanOrEqual(Date.parse(departures.get(b.departureId!)!.createdAt));
      expect(times[i]!).toBeGreaterThanOrEqual(now - 30 * 86_400_000);
      expect(times[i]!).toBeLessThanOrEqual(now - 3_600_000);
    }
    // in store order, each booking is no earlier than the one before, but for the seconds a chunk's
    // last share and the next one's first may overlap by (a booking it could not place moves the next on)
    const backwards = times.filter((ms, i) => i > 0 && ms < times[i - 1]!).length;
    expect(backwards).toBeLessThan(made.length / 50);
    const sorted = [...times].sort((a, b) => a - b);
    expect(times[0]).toBe(sorted[0]);
    expect(times.at(-1)).toBe(sorted.at(-1));
  });
});
