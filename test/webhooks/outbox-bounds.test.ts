import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withServeOptions } from '../../src/cli/commands/start.ts';
import { startOptions, type StartFlags } from '../../src/cli/start.ts';
import { WARNING_HEADER } from '../../src/http/warnings.ts';
import { STORED_EXCERPT_BYTES, utf8Prefix } from '../../src/webhooks/attempt-record.ts';
import { WEBHOOK_DELIVERIES, type StoredDelivery } from '../../src/webhooks/outbox.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { advance, deliveriesOf, emit, subscribe, verify } from './helpers.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/**
 * A light, bounded outbox (docs/webhooks.md, "Durable
 * outbox"): the body is stored once and an attempt only what changed; pending
 * deliveries are bounded per subscription; an endpoint that fails for days is
 * disabled, on the sandbox clock, and says so.
 */
const H = 3_600_000;
const D = 24 * H;
const MAX_PENDING = 3;

let t: TestSandbox;
let receiver: Receiver;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false, webhookMaxPending: MAX_PENDING });
});
afterAll(() => t.sandbox.stop());
beforeEach(async () => {
  receiver = await startReceiver();
});
afterEach(() => receiver.close());

const storedRow = (id: string) => WEBHOOK_DELIVERIES.in(t.sandbox.store).get(t.liveWorkspaceId, id) as StoredDelivery;
const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('the outbox stores a delivery light', () => {
  it("keeps the body once and a bounded record per attempt, and still shows each attempt's request as it was sent", async () => {
    receiver.respond({ status: 500, headers: { 'x-trace': 'y'.repeat(2000) }, body: 'e'.repeat(20_000) });
    const sub = await subscribe(t, { url: receiver.url, events: ['booking.created'], maxRetries: 10, headers: { 'X-Tenant': 'acme' } });
    await emit(t, 'booking.created', { id: 'book_big', notes: 'n'.repeat(4000) });
    await advance(t, 10 * 60 * 1000); // two retries (5 s, 5 min)
    await t.request('PATCH', `/v1/webhooks/subscriptions/${sub.id}`, { body: { headers: { 'X-Tenant': 'globex' } } });
    await advance(t, 5 * D); // the rest of the schedule
    expect(receiver.received).toHaveLength(11);

    const [view] = deliveriesOf(t, sub.id);
    const row = storedRow(view!.id);
    const text = JSON.stringify(row);
    expect(occurrences(text, 'n'.repeat(4000))).toBe(1); // the payload, once
    for (const attempt of row.attempts) expect(JSON.stringify(attempt).length).toBeLessThan(STORED_EXCERPT_BYTES + 512);
    expect(text.length).toBeLessThan(row.body.length + 11 * (STORED_EXCERPT_BYTES + 512) + 1024);

    // the public shape is rebuilt from the stored parts: what the receiver got, signature and all
    expect(view!.attempts).toHaveLength(11);
    view!.attempts.forEach((attempt, i) => {
      const got = receiver.received[i]!;
      expect(attempt.request).toMatchObject({ url: receiver.url, body: got.body });
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-tenant', 'user-agent', 'content-type']) {
        expect(attempt.request.headers[Object.keys(attempt.request.headers).find((h) => h.toLowerCase() === name)!]).toBe(got.headers[name]);
      }
      verify(sub.secret, { ...got, headers: Object.fromEntries(Object.entries(attempt.request.headers).map(([k, v]) => [k.toLowerCase(), v])) });
      expect(attempt.response).toMatchObject({ status: 500, bodyExcerpt: 'e'.repeat(STORED_EXCERPT_BYTES) });
      expect(attempt.response!.headers['x-trace']).toBeUndefined();
    });
    expect(view!.attempts.map((a) => a.request.headers['X-Tenant'])).toEqual([...Array(3).fill('acme'), ...Array(8).fill('globex')]);
  });
});

describe('outbox rows in the older shape (attempts stored whole)', () => {
  it('a pending delivery with attempts in the old shape is shown as it was and retried in the new one', async () => {
    receiver.respond({ status: 200 });
    const sub = await subscribe(t, { url: receiver.url, events: ['booking.updated'] });
    const at = t.sandbox.clock.iso();
    const body = JSON.stringify({ id: 'evt_old', type: 'booking.updated', data: { id: 'book_old' } });
    const oldAttempt = {
      number: 1,
      trigger: 'initial',
      at,
      request: { url: receiver.url, headers: { 'webhook-id': 'dlv_00000000-0000-4000-8000-00000000a027' }, body },
      response: { status: 500, headers: {}, bodyExcerpt: 'no' },
      latencyMs: 1,
      error: null,
    };
    const legacy = {
      id: 'dlv_00000000-0000-4000-8000-00000000a027',
      workspaceId: t.liveWorkspaceId,
      subscriptionId: sub.id,
      eventId: 'evt_old',
      eventType: 'booking.updated',
      status: 'pending',
      reason: null,
      retries: 1,
      nextAttemptAt: at,
      body,
      createdAt: at,
      updatedAt: at,
      attempts: [oldAttempt],
    };
    await t.sandbox.store.commit([WEBHOOK_DELIVERIES.putOp(t.liveWorkspaceId, legacy as StoredDelivery)]);
    t.sandbox.context.webhooks.afterReset(); // as on a start with this database
    await advance(t, 1000);
    const view = deliveriesOf(t, sub.id).find((d) => d.id === legacy.id)!;
    expect(view.status).toBe('succeeded');
    expect(view.attempts[0]).toEqual(oldAttempt);
    expect(view.attempts[1]).toMatchObject({ number: 2, request: { url: receiver.url, body }, response: { status: 200 } });
    expect(view.attempts[1]!.request.headers['webhook-signature']).toBe(receiver.received.at(-1)!.headers['webhook-signature']);
  });

  it('an excerpt never ends in half a character', () => {
    expect(utf8Prefix('é'.repeat(300), 511)).toBe('é'.repeat(255));
    expect(Buffer.byteLength(utf8Prefix('€'.repeat(200), STORED_EXCERPT_BYTES))).toBe(510);
    expect(utf8Prefix('plain', STORED_EXCERPT_BYTES)).toBe('plain');
  });
});

describe('pending deliveries are bounded per subscription', () => {
  it('past webhookMaxPending the oldest pending delivery is marked expired, with its reason, and never sent again', async () => {
    receiver.respond({ status: 500 });
    const sub = await subscribe(t, { url: receiver.url, events: ['product.created'], maxRetries: 10 });
    for (let i = 0; i < MAX_PENDING + 2; i++) await emit(t, 'product.created', { id: `prod_${i}` });
    const byEvent = (status: string) =>
      deliveriesOf(t, sub.id)
        .filter((d) => d.status === status)
        .map((d) => JSON.parse(d.body).data.id)
        .sort();
    expect(byEvent('pending')).toEqual(['prod_2', 'prod_3', 'prod_4']);
    expect(byEvent('expired')).toEqual(['prod_0', 'prod_1']);
    const expired = deliveriesOf(t, sub.id).filter((d) => d.status === 'expired');
    for (const d of expired)
      expect(d).toMatchObject({
        nextAttemptAt: null,
        reason: expect.stringMatching(/^expired: 3 deliveries to this subscription were pending \(webhookMaxPending\)/),
      });
    const listed = (await t.request('GET', `/__sandbox/deliveries?subscriptionId=${sub.id}&status=expired`, { key: null })).json().data;
    expect(listed).toHaveLength(2);

    await advance(t, 5 * D);
    for (const d of deliveriesOf(t, sub.id).filter((d) => d.status === 'expired')) expect(d.attempts).toHaveLength(1);
    expect(receiver.received.filter((r) => ['prod_0', 'prod_1'].includes(JSON.parse(r.body).data.id))).toHaveLength(2);
  });
});

describe('the bound is an option', () => {
  it('`sandbox start --webhook-max-pending <n>` sets webhookMaxPending; the default is 1,000', async () => {
    const parse = (args: string[]) =>
      withServeOptions(new Command().exitOverride().configureOutput({ writeErr: () => undefined }), { port: 0 })
        .parse(['node', 'x', ...args])
        .opts<StartFlags>();
    expect(startOptions(parse(['--webhook-max-pending', '50']))).toMatchObject({ webhookMaxPending: 50 });
    expect(() => parse(['--webhook-max-pending', '0'])).toThrow(/--webhook-max-pending must be a whole number from 1/);
    const plain = await testSandbox();
    expect(plain.sandbox.options.webhookMaxPending).toBe(1_000);
    await plain.sandbox.stop();
  });
});

describe('an endpoint that fails for days', () => {
  it('is disabled after 5 days of failures on the sandbox clock, and GET and the list say so until it is resumed', async () => {
    receiver.respond({ status: 503 });
    const sub = await subscribe(t, { url: receiver.url, events: ['customer.created'], maxRetries: 10 });
    const get = () => t.request('GET', `/v1/webhooks/subscriptions/${sub.id}`);
    await emit(t, 'customer.created', { id: 'ppl_1' });
    await advance(t, 4 * D); // failing for 4 days: still active
    expect((await get()).json().data.active).toBe(true);
    expect((await get()).headers[WARNING_HEADER]).toBeUndefined();

    await advance(t, D + H);
    await emit(t, 'customer.created', { id: 'ppl_2' }); // its first attempt fails 5 days after the first failure
    const res = await get();
    expect(res.json().data).toMatchObject({ active: false });
    expect(res.json().data).not.toHaveProperty('disabled');
    expect(res.headers[WARNING_HEADER]).toMatch(
      new RegExp(`^SUBSCRIPTION_DISABLED: subscription ${sub.id} was disabled at .*every delivery attempt failed for 5 days`),
    );
    const list = await t.request('GET', '/v1/webhooks/subscriptions');
    expect(list.headers[WARNING_HEADER]).toContain(`SUBSCRIPTION_DISABLED: subscription ${sub.id}`);
    const second = deliveriesOf(t, sub.id).find((d) => JSON.parse(d.body).data.id === 'ppl_2')!;
    expect(second).toMatchObject({ status: 'cancelled', reason: expect.stringMatching(/^subscription disabled: every delivery attempt failed/) });

    // nothing more is sent; resuming clears the warning and starts a fresh window
    const sent = receiver.received.length;
    await emit(t, 'customer.created', { id: 'ppl_3' });
    expect(receiver.received).toHaveLength(sent);
    await t.request('PATCH', `/v1/webhooks/subscriptions/${sub.id}`, { body: { active: true } });
    expect((await get()).headers[WARNING_HEADER]).toBeUndefined();
    await emit(t, 'customer.created', { id: 'ppl_4' });
    expect((await get()).json().data.active).toBe(true);
  });

  it('a success in between starts the window again', async () => {
    receiver.respond((n) => ({ status: n === 3 ? 200 : 500 }));
    const sub = await subscribe(t, { url: receiver.url, events: ['payment.failed'], maxRetries: 0 });
    for (let day = 0; day < 8; day++) {
      await emit(t, 'payment.failed', { id: `pay_${day}` });
      await advance(t, D);
    }
    // failures on days 0-1, a success on day 2, failures on days 3-7: never 5 days in a row
    expect((await t.request('GET', `/v1/webhooks/subscriptions/${sub.id}`)).json().data.active).toBe(true);
    await emit(t, 'payment.failed', { id: 'pay_8' }); // day 8: the window since day 3 is full
    expect((await t.request('GET', `/v1/webhooks/subscriptions/${sub.id}`)).json().data.active).toBe(false);
  });
});
