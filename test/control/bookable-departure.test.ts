import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstBookableDeparture } from '../../src/resources/departures/bookable.ts';
import type { Departure } from '../../src/resources/departures/schemas.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * GET /__sandbox/workspaces/:id/departures/bookable?seats=n (docs/control-plane.md): the
 * departure the README's first booking books, the one the banner offers; once it is full, the
 * next one with room.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const bookable = (seats?: number, workspace = t.sandboxWorkspaceId) =>
  t.request('GET', `/__sandbox/workspaces/${workspace}/departures/bookable${seats === undefined ? '' : `?seats=${seats}`}`, { key: null });

describe('GET /__sandbox/workspaces/:id/departures/bookable', () => {
  it("answers {data: {departure, productTitle}}: the banner's offer", async () => {
    const today = t.sandbox.clock.iso().slice(0, 10);
    const offer = firstBookableDeparture(t.sandbox.store, t.sandboxWorkspaceId, today, 2)!;
    const res = await bookable(2);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ data: { departure: offer.departure, productTitle: offer.productTitle } });
    expect(offer.departure.seatsLeft).toBeGreaterThanOrEqual(2);
  });

  it('moves on to the next departure with room once bookings fill the first', async () => {
    const first = (await bookable(2)).json().data.departure as Departure;
    for (let left = first.seatsLeft; left >= 2; left -= 2) {
      const booked = await t.request('POST', '/v1/bookings', { key: KEYS.sandboxFull, body: { departureId: first.id, adults: 2 } });
      expect(booked.statusCode, booked.body).toBe(201);
    }
    const next = (await bookable(2)).json().data.departure as Departure;
    expect(next.id).not.toBe(first.id);
    expect(next.seatsLeft).toBeGreaterThanOrEqual(2);
    const booked = await t.request('POST', '/v1/bookings', { key: KEYS.sandboxFull, body: { departureId: next.id, adults: 2 } });
    expect(booked.statusCode, booked.body).toBe(201);
  });

  it('takes seats from 1 (the default) to 500; more seats than any departure has is a 404 that says what to do', async () => {
    expect((await bookable()).statusCode).toBe(200);
    const none = await bookable(500);
    expect(none.statusCode).toBe(404);
    const today = t.sandbox.clock.iso().slice(0, 10);
    expect(none.json()).toEqual({
      error: `No departure of workspace ${t.sandboxWorkspaceId} has 500 seats left from ${today} on: each is sold out, cancelled, departed or of an inactive product; POST /__sandbox/workspaces/${t.sandboxWorkspaceId}/reset puts the fixture departures back`,
    });
    for (const bad of [0, 501]) {
      const res = await bookable(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_400', details: [{ message: expect.stringMatching(/^querystring\.seats: /) }] });
    }
  });

  it('an unknown workspace is the 404 of every workspace route', async () => {
    const res = await bookable(2, 'wksp_00000000-0000-4000-8000-000000000000');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Workspace wksp_00000000-0000-4000-8000-000000000000 not found' });
  });
});
