import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { book, departureNow, pickDeparture, recordEvents, setup } from './helpers.ts';

/** The booking state machine behind PATCH /v1/bookings/:id (docs/bookings.md, "Status moves"). */
let t: TestSandbox;
beforeAll(async () => {
  t = await setup();
});
afterAll(() => t.sandbox.stop());

type Status = 'pending' | 'confirmed' | 'cancelled' | 'completed';
/** The moves a 409 lists as allowed from each status (docs/bookings.md, "Status moves"). */
const ALLOWED: Record<Status, Status[]> = { pending: ['confirmed', 'cancelled'], confirmed: ['completed', 'cancelled'], cancelled: [], completed: [] };
const PATH_TO: Record<Status, Status[]> = { pending: [], confirmed: ['confirmed'], cancelled: ['cancelled'], completed: ['confirmed', 'completed'] };

async function bookingIn(status: Status, extra: Record<string, unknown> = {}): Promise<string> {
  const { departure } = pickDeparture(t, { rooms: false });
  const res = await book(t, { departureId: departure.id, adults: 1, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.id as string;
  for (const step of PATH_TO[status]) expect((await patch(id, { status: step })).statusCode).toBe(200);
  return id;
}

const patch = (id: string, body: unknown) => t.request('PATCH', `/v1/bookings/${id}`, { body });

describe('PATCH /v1/bookings/:id status moves', () => {
  it.each([
    ['pending', 'confirmed'],
    ['pending', 'cancelled'],
    ['confirmed', 'completed'],
    ['confirmed', 'cancelled'],
  ] as [Status, Status][])('%s -> %s is allowed and answers bare {id, status, notes}', async (from, to) => {
    const id = await bookingIn(from);
    const res = await patch(id, { status: to });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id, status: to, notes: null });
  });

  it.each([
    ['pending', 'completed', 'from pending a booking can move to confirmed or cancelled'],
    ['confirmed', 'pending', 'from confirmed a booking can move to completed or cancelled'],
    ['cancelled', 'pending', 'cancelled is a final status'],
    ['cancelled', 'confirmed', 'cancelled is a final status'],
    ['cancelled', 'completed', 'cancelled is a final status'],
    ['completed', 'pending', 'completed is a final status'],
    ['completed', 'confirmed', 'completed is a final status'],
    ['completed', 'cancelled', 'completed is a final status'],
  ] as [Status, Status, string][])('%s -> %s is a 409 with a clear error', async (from, to, why) => {
    const id = await bookingIn(from);
    const res = await patch(id, { status: to });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: `Cannot move booking from ${from} to ${to}: ${why}`, from, to, allowed: ALLOWED[from] });
    expect((await t.request('GET', `/v1/bookings/${id}`)).json().data.status).toBe(from);
  });

  it('sending the current status again changes nothing and emits nothing', async () => {
    const id = await bookingIn('cancelled');
    const events = recordEvents(t);
    const res = await patch(id, { status: 'cancelled' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id, status: 'cancelled' });
    expect(events).toEqual([]);
  });

  it('an empty PATCH (or one with no body at all) changes nothing, with a warning: only the webhook PATCH needs "at least one"; an unknown status is a 400', async () => {
    const id = await bookingIn('pending');
    const empty = await patch(id, {});
    expect(empty.statusCode).toBe(200);
    expect(empty.json()).toEqual({ id, status: 'pending', notes: null });
    expect(empty.headers['x-sandbox-warning']).toMatch(/^INFERRED_LIMIT: the PATCH names neither status nor notes, so it changes nothing/);
    const none = await t.request('PATCH', `/v1/bookings/${id}`, { payload: '', headers: { 'content-type': 'application/json' } });
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ id, status: 'pending', notes: null });
    expect(none.headers['x-sandbox-warning']).toBe(empty.headers['x-sandbox-warning']);
    const unknownOnly = await patch(id, { paymentStatus: 'paid' });
    expect(unknownOnly.statusCode).toBe(200);
    expect(unknownOnly.headers['x-sandbox-warning']).toMatch(/UNKNOWN_FIELD: ignored body.paymentStatus.*INFERRED_LIMIT/);
    const bad = await patch(id, { status: 'shipped' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].message).toMatch(/body\.status/);
  });

  it('notes alone update the notes; null clears them', async () => {
    const id = await bookingIn('confirmed');
    expect((await patch(id, { notes: 'call back' })).json()).toEqual({ id, status: 'confirmed', notes: 'call back' });
    expect((await patch(id, { notes: null })).json()).toEqual({ id, status: 'confirmed', notes: null });
  });

  it('unknown booking is 404, a wrong prefix 400', async () => {
    expect((await patch('book_00000000-0000-4000-8000-000000000000', { status: 'confirmed' })).json()).toEqual({ error: 'Booking not found' });
    const wrong = await patch('dept_00000000-0000-4000-8000-000000000000', { status: 'confirmed' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error).toMatch(/Invalid id: expected an id of the form book_<uuid>/);
  });
});

describe('events and payments on status moves', () => {
  it('emits booking.created and payment.succeeded for a booking created paid, each once', async () => {
    const events = recordEvents(t);
    const id = await bookingIn('pending', { paymentStatus: 'paid', status: 'confirmed' });
    expect(events.map((e) => e.type)).toEqual(['booking.created', 'payment.succeeded']);
    expect(events.every((e) => e.data.id === id && e.data.status === 'confirmed' && e.workspaceId === t.liveWorkspaceId)).toBe(true);
  });

  it('cancelling a paid booking refunds it: booking.cancelled then payment.refunded, seats back', async () => {
    const { departure } = pickDeparture(t, { rooms: false });
    const before = departure.seatsLeft;
    const res = await book(t, { departureId: departure.id, adults: 2, paymentStatus: 'paid', status: 'confirmed' });
    const id = res.json().data.id;
    expect(departureNow(t, departure.id).seatsLeft).toBe(before - 2);
    const events = recordEvents(t);
    expect((await patch(id, { status: 'cancelled' })).statusCode).toBe(200);
    expect(events.map((e) => e.type)).toEqual(['booking.cancelled', 'payment.refunded']);
    expect(events[1]!.data).toMatchObject({ id, status: 'cancelled', paymentStatus: 'refunded' });
    expect(departureNow(t, departure.id).seatsLeft).toBe(before);
  });

  it('confirming emits booking.updated with the booking as it stands after the change', async () => {
    const id = await bookingIn('pending');
    const events = recordEvents(t);
    await patch(id, { status: 'confirmed' });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'booking.updated', data: { id, status: 'confirmed' } });
  });
});
