import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_EXCERPT_BYTES } from '../../src/webhooks/attempt-record.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/catalogue.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { emit, settle, subscribe, verify } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let t: TestSandbox;
let receiver: Receiver;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
  receiver = await startReceiver();
});
afterAll(async () => {
  await t.sandbox.stop();
  await receiver.close();
});

const control = (method: string, path: string, body?: unknown) => t.request(method, `/__sandbox${path}`, { key: null, body });

describe('control plane: deliveries and events', () => {
  it('POST /events emits a catalogue event with realistic data from the workspace', async () => {
    const sub = await subscribe(t, { url: receiver.url, events: ['booking.cancelled', 'payment.refunded'] });
    const res = await control('POST', '/events', { workspaceId: t.liveWorkspaceId, type: 'booking.cancelled' });
    expect(res.statusCode).toBe(201);
    const { event, deliveryIds } = res.json().data;
    expect(event).toMatchObject({ type: 'booking.cancelled', workspaceId: t.liveWorkspaceId, data: { status: 'cancelled' } });
    expect(event.data.id).toMatch(/^book_/);
    expect(deliveryIds).toHaveLength(1);
    await settle(t);
    expect(verify(sub.secret, receiver.received.at(-1)!)).toMatchObject({ id: event.id, type: 'booking.cancelled', data: { id: event.data.id } });
    const payment = (await control('POST', '/events', { workspaceId: t.liveWorkspaceId, type: 'payment.refunded' })).json().data.event.data;
    expect(payment).toMatchObject({ status: 'refunded', bookingId: expect.stringMatching(/^book_/), amount: expect.any(Number) });
  });

  it('POST /events uses the data given, and rejects unknown types and workspaces', async () => {
    const res = await control('POST', '/events', { workspaceId: t.sandboxWorkspaceId, type: 'customer.updated', data: { id: 'ppl_given' } });
    expect(res.json().data.event.data).toEqual({ id: 'ppl_given' });
    expect((await control('POST', '/events', { workspaceId: t.liveWorkspaceId, type: 'booking.exploded' })).statusCode).toBe(400);
    expect((await control('POST', '/events', { workspaceId: 'wksp_nope', type: 'booking.created' })).statusCode).toBe(404);
    expect((await control('GET', '/events/types')).json().data).toEqual([...WEBHOOK_EVENT_TYPES]);
  });

  it('GET /deliveries filters by subscription, event type and status, and logs each attempt', async () => {
    receiver.respond({ status: 500, body: 'x'.repeat(5000) });
    const sub = await subscribe(t, { url: receiver.url, events: ['product.*'], maxRetries: 1 });
    await emit(t, 'product.created');
    await emit(t, 'product.updated');
    receiver.respond({ status: 200 });
    const list = async (query: string) => (await control('GET', `/deliveries?subscriptionId=${sub.id}${query}`)).json().data;
    expect(await list('')).toHaveLength(2);
    const [created] = await list('&eventType=product.created');
    expect(created).toMatchObject({ eventType: 'product.created', status: 'pending' });
    expect(created.attempts[0]).toMatchObject({ response: { status: 500 }, latencyMs: expect.any(Number), request: { url: receiver.url, body: created.body } });
    expect(created.attempts[0].request.headers['webhook-id']).toBe(created.id);
    expect(created.attempts[0].response.bodyExcerpt).toBe('x'.repeat(STORED_EXCERPT_BYTES)); // the first 512 bytes are kept
    expect(await list('&status=succeeded')).toHaveLength(0);
    expect((await control('GET', '/deliveries?status=nope')).statusCode).toBe(400);
    expect((await control('GET', `/deliveries/${created.id}`)).json().data.id).toBe(created.id);
    expect((await control('GET', '/deliveries/dlv_nope')).statusCode).toBe(404);
  });

  it('POST /deliveries/:id/replay sends the same message again, with the same webhook-id', async () => {
    const sub = await subscribe(t, { url: receiver.url, events: ['customer.created'], maxRetries: 0 });
    receiver.respond({ status: 500 });
    await emit(t, 'customer.created');
    const [failed] = (await control('GET', `/deliveries?subscriptionId=${sub.id}`)).json().data;
    expect(failed.status).toBe('failed');
    receiver.respond({ status: 200 });
    const res = await control('POST', `/deliveries/${failed.id}/replay`);
    expect(res.json().data).toMatchObject({ id: failed.id, status: 'succeeded' });
    expect(res.json().data.attempts.map((a: { trigger: string }) => a.trigger)).toEqual(['initial', 'replay']);
    const last = receiver.received.at(-1)!;
    expect(last.headers['webhook-id']).toBe(failed.id);
    expect(last.body).toBe(failed.body);
    verify(sub.secret, last);
  });

  it('POST /webhook-subscriptions creates, then reuses by URL, returning the secret', async () => {
    const url = `${receiver.url}/listen`;
    const first = await control('POST', '/webhook-subscriptions', { workspaceId: t.sandboxWorkspaceId, url, events: ['*'] });
    expect(first.statusCode).toBe(201);
    const again = await control('POST', '/webhook-subscriptions', { workspaceId: t.sandboxWorkspaceId, url, events: ['booking.*'] });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toMatchObject({
      created: false,
      secret: first.json().data.secret,
      subscription: { id: first.json().data.subscription.id, events: ['booking.*'], active: true },
    });
    expect(
      (await control('POST', '/webhook-subscriptions', { workspaceId: t.sandboxWorkspaceId, url: 'http://example.com/x', events: ['*'] })).statusCode,
    ).toBe(400);
  });
});

describe('replay of a deleted subscription', () => {
  it('is a 409: there is nowhere to send it', async () => {
    const sub = await subscribe(t, { url: receiver.url, events: ['customer.updated'], maxRetries: 0 });
    await emit(t, 'customer.updated');
    const [delivery] = (await control('GET', `/deliveries?subscriptionId=${sub.id}`)).json().data;
    await t.request('DELETE', `/v1/webhooks/subscriptions/${sub.id}`);
    const res = await control('POST', `/deliveries/${delivery.id}/replay`);
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatch(/no longer exists/);
  });
});
