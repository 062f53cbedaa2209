import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookingResponseSchema } from '../../../src/resources/bookings/requests.ts';
import { WizardResponseSchema } from '../../../src/resources/bookings/wizard-requests.ts';
import { PersonSchema } from '../../../src/resources/people/schemas.ts';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { createPerson, departureNow, pickDeparture, recordEvents, setup } from './helpers.ts';

/** POST /v1/bookings/wizard/session (designed: docs/bookings.md) and people (API description, "People"). */
let t: TestSandbox;
beforeAll(async () => {
  t = await setup();
});
afterAll(() => t.sandbox.stop());

const wizard = async (body: unknown, status: number) => {
  const res = await t.request('POST', '/v1/bookings/wizard/session', { body });
  expect(res.statusCode, res.body).toBe(status);
  return res.json();
};

describe('booking wizard sessions', () => {
  it('collects product, departure, pax and extras, re-prices each step, holds no seats, then completes into a booking', async () => {
    const { product, departure, extensions } = pickDeparture(t, { rooms: false, perPersonAddon: true });
    const addon = extensions.find((e) => e.pricingUnit === 'per_person' && e.maxQuantity >= 4)!;
    const started = WizardResponseSchema.parse(await wizard({ productId: product.id }, 201)).data;
    expect(started).toMatchObject({
      id: expect.stringMatching(/^ws_[0-9a-f-]{36}$/),
      status: 'open',
      productId: product.id,
      departureId: null,
      quote: null,
      bookingId: null,
    });
    const priced = WizardResponseSchema.parse(await wizard({ sessionId: started.id, departureId: departure.id, adults: 2 }, 200)).data;
    expect(priced.quote!.lines.find((l) => l.code === 'adult')!.quantity).toBe(2);
    const extras = WizardResponseSchema.parse(
      await wizard({ sessionId: started.id, addons: [{ extensionId: addon.id, quantity: 2 }], couponCode: 'welcome50' }, 200),
    ).data;
    expect(extras).toMatchObject({ couponCode: 'WELCOME50', adults: 2, addons: [{ extensionId: addon.id, quantity: 2 }] });
    expect(extras.quote!.discounts).toBe(5000);
    expect(departureNow(t, departure.id).seatsLeft).toBe(departure.seatsLeft);

    const customer = await createPerson(t);
    const events = recordEvents(t);
    const done = WizardResponseSchema.parse(
      await wizard({ sessionId: started.id, action: 'complete', customerId: customer.id, booking: { code: 'WIZ-1', metadata: { via: 'wizard' } } }, 201),
    ).data;
    expect(done).toMatchObject({ status: 'completed', bookingId: expect.stringMatching(/^book_/) });
    const booking = BookingResponseSchema.parse((await t.request('GET', `/v1/bookings/${done.bookingId}`)).json()).data;
    expect(booking).toMatchObject({
      code: 'WIZ-1',
      adults: 2,
      addonQuantity: 2,
      couponCode: 'WELCOME50',
      customerId: customer.id,
      metadata: { via: 'wizard' },
      status: 'pending',
    });
    expect(booking.totals.total).toBe(extras.quote!.total);
    expect(departureNow(t, departure.id).seatsLeft).toBe(departure.seatsLeft - 2);
    expect(events.map((e) => e.type)).toEqual(['booking.created']);
    const again = await t.request('POST', '/v1/bookings/wizard/session', { body: { sessionId: started.id, action: 'complete' } });
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toMatch(new RegExp(`^Wizard session ${started.id} is completed \\(booking ${done.bookingId}\\)$`));
  });

  it('rejects bad steps: unknown or wrong-prefixed ids, a departure of another product, extras before a departure, expired sessions', async () => {
    const a = pickDeparture(t, { rooms: false });
    const b = pickDeparture(t, {
      rooms: false,
      exclude: t.sandbox.store
        .list<{ id: string; productId: string }>('departures', t.liveWorkspaceId)
        .filter((d) => d.productId === a.product.id)
        .map((d) => d.id),
    });
    const s = (await wizard({ productId: a.product.id }, 201)).data;
    expect((await wizard({ sessionId: s.id, departureId: b.departure.id }, 400)).error).toMatch(/is not a departure of product/);
    expect((await wizard({ sessionId: s.id, couponCode: 'SUMMER10' }, 400)).error).toMatch(/choose a departure before rooms, add-ons or a coupon/);
    expect((await wizard({ sessionId: s.id, action: 'complete' }, 400)).error).toMatch(/completes once it has a departure/);
    expect((await wizard({ sessionId: 'ws_00000000-0000-4000-8000-000000000000' }, 404)).error).toBe('Wizard session not found');
    expect((await wizard({ sessionId: 'book_00000000-0000-4000-8000-000000000000' }, 400)).error).toMatch(
      /Invalid sessionId: expected an id of the form ws_<uuid>/,
    );
    expect((await wizard({ action: 'complete' }, 400)).code).toBe('VALIDATION_400');
    expect((await wizard({ sessionId: s.id, departureId: a.departure.id, couponCode: 'NOPE' }, 400)).error).toBe('Unknown coupon code "NOPE"');
    await t.sandbox.clock.advance(60 * 60 * 1000 + 1);
    expect((await wizard({ sessionId: s.id, adults: 2 }, 409)).error).toMatch(/expired at/);
  });
});

describe('people', () => {
  it('GET /v1/people/:id answers the bare person with firstName, middleName, lastName', async () => {
    const created = await createPerson(t, { firstName: 'Ion', middleName: 'Luca', lastName: 'Popescu' });
    const res = await t.request('GET', `/v1/people/${created.id}`);
    expect(res.statusCode).toBe(200);
    const person = PersonSchema.parse(res.json());
    expect(person).toMatchObject({ id: created.id, firstName: 'Ion', middleName: 'Luca', lastName: 'Popescu' });
    expect(res.json()).not.toHaveProperty('data');
    const fixture = t.sandbox.store.list<{ id: string }>('people', t.liveWorkspaceId)[0]!;
    expect(PersonSchema.parse((await t.request('GET', `/v1/people/${fixture.id.replace('ppl_', '')}`)).json()).id).toBe(fixture.id);
  });

  it('unknown 404 naming the person; another workspace 404; wrong prefix 400', async () => {
    const ghost = 'ppl_00000000-0000-4000-8000-00000000000f';
    expect((await t.request('GET', `/v1/people/${ghost}`)).json()).toEqual({ error: `Person ${ghost} not found` });
    const foreign = t.sandbox.store.list<{ id: string }>('people', t.sandboxWorkspaceId)[0]!.id;
    expect((await t.request('GET', `/v1/people/${foreign}`)).statusCode).toBe(404);
    expect((await t.request('GET', '/v1/people/book_00000000-0000-4000-8000-000000000000')).json().error).toMatch(
      /^Invalid id: expected an id of the form ppl_<uuid>$/,
    );
  });

  it('the control plane creates people (201 {data}), emits customer.created once, refuses duplicates and bad input', async () => {
    const events = recordEvents(t);
    const body = { firstName: 'Mara', lastName: 'Ionescu', email: 'mara.ionescu.test@example.org' };
    const res = await t.request('POST', `/__sandbox/workspaces/${t.liveWorkspaceId}/people`, { key: null, body });
    expect(res.statusCode).toBe(201);
    const person = PersonSchema.parse(res.json().data);
    expect(person).toMatchObject({ ...body, middleName: null, phone: null });
    expect(events.map((e) => [e.type, e.data.id])).toEqual([['customer.created', person.id]]);
    const dup = await t.request('POST', `/__sandbox/workspaces/${t.liveWorkspaceId}/people`, { key: null, body: { ...body, email: body.email.toUpperCase() } });
    expect(dup.statusCode).toBe(409);
    expect((await t.request('POST', `/__sandbox/workspaces/${t.liveWorkspaceId}/people`, { key: null, body: { firstName: 'X' } })).statusCode).toBe(400);
    expect((await t.request('POST', '/__sandbox/workspaces/wksp_nope/people', { key: null, body })).statusCode).toBe(404);
  });
});
