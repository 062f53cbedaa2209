import { describe, expect, it } from 'vitest';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { lenientAndStrict, SUBSCRIPTION } from './helpers.ts';

/** Any well-formed event name is accepted; one the sandbox never emits gets a warning. */
let t: TestSandbox;
let strict: TestSandbox;
lenientAndStrict((lenient, strictOne) => {
  t = lenient;
  strict = strictOne;
});

const create = (s: TestSandbox, events: string[]) => s.request('POST', '/v1/webhooks/subscriptions', { body: { url: 'https://example.com/hooks', events } });

describe('webhook event names', () => {
  it.each([['booking.refunded'], ['product.deleted'], ['booking.confirmed']])('%s is stored, with an UNKNOWN_EVENT_TYPE warning', async (name) => {
    const res = await create(t, ['booking.created', name]);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.events).toEqual(['booking.created', name]);
    // the second warning is the endpoint's own (POST is not in the description)
    expect(String(res.headers['x-sandbox-warning']).split('; ')[0]).toBe(
      `UNKNOWN_EVENT_TYPE: body.events "${name}" stored, but the sandbox never emits a matching event (the ones it emits: docs/webhooks.md)`,
    );
  });

  it('a pattern matching nothing the sandbox emits is stored with a warning; known names and patterns carry none', async () => {
    expect((await create(t, ['invoice.*'])).headers['x-sandbox-warning']).toMatch(/^UNKNOWN_EVENT_TYPE/);
    const known = await create(t, ['booking.*', 'gallery.file.deleted', '*']);
    expect(known.statusCode).toBe(201);
    expect(known.headers['x-sandbox-warning']).not.toContain('UNKNOWN_EVENT_TYPE');
  });

  it('PATCH events accepts them too', async () => {
    const res = await t.request('PATCH', `/v1/webhooks/subscriptions/${SUBSCRIPTION}`, { body: { events: ['payment.refunded', 'booking.refunded'] } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['x-sandbox-warning']).toContain('"booking.refunded"');
    expect(res.headers['x-sandbox-warning']).not.toContain('"payment.refunded"');
  });

  it('a malformed name stays a 400 VALIDATION_400', async () => {
    const res = await create(t, ['Booking.Created']);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_400', details: [{ message: expect.stringMatching(/resource\.action/) }] });
  });

  it('strict mode refuses an unknown name with 400 VALIDATION_400 and creates nothing', async () => {
    const before = strict.sandbox.store.list('webhookSubscriptions', strict.liveWorkspaceId).length;
    const res = await create(strict, ['booking.refunded']);
    expect(res.statusCode).toBe(400);
    // and UNDOCUMENTED_ENDPOINT after it: POST is not in the description
    expect(res.json()).toMatchObject({
      code: 'VALIDATION_400',
      details: [{ message: expect.stringMatching(/^UNKNOWN_EVENT_TYPE/) }, { message: expect.stringMatching(/^UNDOCUMENTED_ENDPOINT/) }],
    });
    expect(strict.sandbox.store.list('webhookSubscriptions', strict.liveWorkspaceId).length).toBe(before);
  });
});
