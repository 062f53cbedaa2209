import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { book, departureNow, pickDeparture, setSeats, setup } from './helpers.ts';

/**
 * Seats are taken atomically: the check and the take happen in the same
 * synchronous step as the commit, so concurrent bookings can never oversell a
 * departure (docs/bookings.md, "Seats").
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await setup();
});
afterAll(() => t.sandbox.stop());

describe('the race for the last seat', () => {
  it('lets exactly one of many concurrent bookings win; the rest get 409 and seatsLeft never goes negative', async () => {
    const { departure } = pickDeparture(t, { rooms: false });
    await setSeats(t, departure, 1);
    const seen: number[] = [];
    const off = t.sandbox.store.onChange(() => seen.push(departureNow(t, departure.id).seatsLeft));
    const results = await Promise.all(Array.from({ length: 25 }, () => book(t, { departureId: departure.id, adults: 1 })));
    off();
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(1);
    expect(codes.filter((c) => c === 409)).toHaveLength(24);
    for (const r of results.filter((res) => res.statusCode === 409)) {
      expect(r.json().error).toMatch(new RegExp(`Departure ${departure.id} is sold out|Not enough seats on departure ${departure.id}`));
    }
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(0);
    expect(departureNow(t, departure.id)).toMatchObject({ seatsLeft: 0, status: 'sold_out' });
    const winners = t.sandbox.store
      .list<{ id: string; departureId: string; createdAt: string }>('bookings', t.liveWorkspaceId)
      .filter((b) => b.departureId === departure.id && b.createdAt === t.sandbox.clock.iso());
    expect(winners).toHaveLength(1);
  });

  it('does not oversell when parties of different sizes race for the last few seats', async () => {
    const { departure } = pickDeparture(t, { rooms: false, minSeats: 6 });
    await setSeats(t, departure, 5);
    const parties = [3, 2, 2, 1, 4, 1, 3, 2, 1, 1];
    const results = await Promise.all(parties.map((adults) => book(t, { departureId: departure.id, adults })));
    const sold = results.reduce((sum, r, i) => sum + (r.statusCode === 201 ? parties[i]! : 0), 0);
    expect(results.every((r) => r.statusCode === 201 || r.statusCode === 409)).toBe(true);
    expect(sold).toBeLessThanOrEqual(5);
    expect(departureNow(t, departure.id).seatsLeft).toBe(5 - sold);
  });

  it('cancelling gives the seat back and the next booking can take it', async () => {
    const { departure } = pickDeparture(t, { rooms: false, minSeats: 6 });
    await setSeats(t, departure, 1);
    const first = await book(t, { departureId: departure.id, adults: 1 });
    expect(first.statusCode).toBe(201);
    expect((await book(t, { departureId: departure.id, adults: 1 })).statusCode).toBe(409);
    const patch = await t.request('PATCH', `/v1/bookings/${first.json().data.id}`, { body: { status: 'cancelled' } });
    expect(patch.statusCode).toBe(200);
    expect(departureNow(t, departure.id)).toMatchObject({ seatsLeft: 1 });
    expect(departureNow(t, departure.id).status).not.toBe('sold_out');
    expect((await book(t, { departureId: departure.id, adults: 1 })).statusCode).toBe(201);
  });

  it('a retried POST with the same Idempotency-Key books once and replays the first answer', async () => {
    const { departure } = pickDeparture(t, { rooms: false, minSeats: 6 });
    const headers = { 'idempotency-key': 'book-once-1' };
    const body = { departureId: departure.id, adults: 2 };
    const first = await t.request('POST', '/v1/bookings', { body, headers });
    const retry = await t.request('POST', '/v1/bookings', { body, headers });
    expect(first.statusCode).toBe(201);
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(departureNow(t, departure.id).seatsLeft).toBe(departure.seatsLeft - 2);
  });
});
