import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox.ts';
import { firstBookableDeparture } from '../../src/resources/departures/bookable.ts';
import { PEOPLE } from '../../src/resources/people/collections.ts';
import type { Difference, NotCompared } from '../../src/parity/types.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { call, fakeTarget, type FakeTarget, type PlantedAnswer } from './helpers/fake-target.ts';

/**
 * Every forwarded request is compared or counted with its one reason (docs/parity.md, "Reading
 * the report"): through the proxy and its real recorder, in front of a fake target (a second
 * sandbox behind a planting proxy), a run with one request of each kind, read back on the
 * proxy's URL as a client reads the report.
 */
let target: FakeTarget;
let proxied: Sandbox;
const KIB = 1024;

beforeAll(async () => {
  target = await fakeTarget();
  proxied = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target: target.url, maxBodyBytes: 64 * KIB } });
});
afterAll(async () => {
  await proxied?.stop();
  await target?.stop();
});

const send = (method: string, path: string, body?: unknown) => call(proxied.proxy!.url, method, path, KEYS.sandboxFull, body);
async function report(): Promise<{ requests: number; compared: number; differences: Difference[]; notCompared: NotCompared[] }> {
  await proxied.proxy!.settled();
  const res = await call(proxied.proxy!.url, 'GET', '/__sandbox/parity', null);
  expect(res.status).toBe(200);
  return res.json.data;
}
const UNKNOWN_BOOKING = 'book_00000000-0000-4000-8000-00000000beef';

describe('requests not compared', () => {
  it('requests is compared plus the not-compared counts over a mixed run, one line per reason', async () => {
    await call(proxied.proxy!.url, 'DELETE', '/__sandbox/parity', null);
    const ws = proxied.proxy!.workspaceId;
    const departure = firstBookableDeparture(target.sandbox.store, ws, target.sandbox.clock.isoIn(ws).slice(0, 10))!.departure;
    // made on the real account behind the proxy's back: a person the sandbox learns, a booking it cannot
    const person = { ...PEOPLE.in(target.sandbox.store).list(ws)[0]!, id: 'ppl_00000000-0000-4000-8000-0000000000a1', email: 'only.there@example.com' };
    await target.sandbox.store.commit([PEOPLE.putOp(ws, person)]);
    const booked = await call(target.url, 'POST', '/v1/bookings', KEYS.sandboxFull, { departureId: departure.id, adults: 1 });
    expect(booked.status).toBe(201);

    target.plant = (method, path, answer): PlantedAnswer => {
      if (method === 'GET' && path === '/v1/bookings') return { ...answer, status: 429, body: Buffer.from('{"error":"Rate limit exceeded","retry_after":1}') };
      if (method === 'GET' && path === '/v1/policies') return { ...answer, body: Buffer.from(JSON.stringify({ data: [], pad: ' '.repeat(100 * KIB) })) };
      return answer;
    };
    // the replay of one operation fails in the sandbox
    const inject = proxied.app.inject.bind(proxied.app);
    proxied.app.inject = ((options: { url: string }) => {
      if (options.url.startsWith('/v1/forms')) throw new Error('the replay broke');
      return inject(options as never);
    }) as typeof proxied.app.inject;
    try {
      await send('GET', '/v1/products?limit=2'); // compared
      await send('GET', '/v1/products?limit=3'); // compared
      await send('GET', `/v1/people/${person.id}`); // learned
      await send('GET', '/v1/bookings?limit=1'); // rate-limited (the target)
      await send('GET', `/v1/bookings/${booked.json.data.id}`); // unknown-id
      await send('GET', '/v1/policies'); // too-large
      await send('GET', '/v1/forms'); // no-replay
      await proxied.proxy!.settled(); // the replays run after the client's answers
    } finally {
      target.plant = null;
      proxied.app.inject = inject;
    }

    const r = await report();
    expect(r.requests).toBe(7);
    expect(r.compared).toBe(2);
    expect(r.requests).toBe(r.compared + r.notCompared.reduce((sum, n) => sum + n.count, 0));
    const lines = r.notCompared.map((n) => `${n.reason} ${n.method} ${n.path} x${n.count}`).sort();
    expect(lines).toEqual(
      [
        'learned GET /v1/people/{id} x1',
        'rate-limited GET /v1/bookings x1',
        'unknown-id GET /v1/bookings/{id} x1',
        'too-large GET /v1/policies x1',
        'no-replay GET /v1/forms x1',
      ].sort(),
    );
    const why = new Map(r.notCompared.map((n) => [n.reason, n.detail]));
    expect(why.get('learned')).toMatch(/^learned: the sandbox did not hold the record and learned it from the target's answer/);
    expect(why.get('rate-limited')).toBe("rate-limited: the target answered 429; the target's budget is not the sandbox's");
    expect(why.get('unknown-id')).toBe(
      `unknown-id: it carries ${booked.json.data.id}, which the sandbox neither holds nor could learn; the sandbox answered 404, the target 200`,
    );
    expect(why.get('no-replay')).toBe('no replay: the sandbox could not replay it (the replay broke)');
  });

  it('compares the error bodies of an unknown id both sides refuse with the same status, and reports how they differ', async () => {
    await call(proxied.proxy!.url, 'DELETE', '/__sandbox/parity', null);
    target.plant = (method, path, answer): PlantedAnswer => {
      if (method !== 'GET' || path !== `/v1/bookings/${UNKNOWN_BOOKING}`) return answer;
      const body = JSON.parse(answer.body.toString('utf8'));
      return { ...answer, body: Buffer.from(JSON.stringify({ ...body, code: 'BOOKING_MISSING' })) };
    };
    try {
      const res = await send('GET', `/v1/bookings/${UNKNOWN_BOOKING}`);
      expect(res.status).toBe(404);
    } finally {
      target.plant = null;
    }
    const r = await report();
    expect(r).toMatchObject({ requests: 1, compared: 1, notCompared: [] });
    const error = r.differences.find((d) => d.kind === 'error');
    expect(error).toMatchObject({ method: 'GET', path: '/v1/bookings/{id}', field: 'code', target: 'BOOKING_MISSING', count: 1 });
    expect(error!.sandbox).not.toBe('BOOKING_MISSING');
    // the id is still reported apart, as data
    expect(r.differences.find((d) => d.kind === 'unknown-id')).toMatchObject({ target: UNKNOWN_BOOKING });
  });
});

describe('the sentence of a request not compared', () => {
  it('never holds a secret the request carried', async () => {
    const { createParityRecorder } = await import('../../src/parity/report.ts');
    const recorder = createParityRecorder({ routes: proxied.context.routes });
    const id = `book_x-${KEYS.sandboxFull}`; // an id of our shape that holds a key
    const ok = { status: 200, headers: {}, body: { data: { id } } };
    const missing = { status: 404, headers: {}, body: { error: 'Booking not found' } };
    recorder.record({ requestId: 'req_key', method: 'GET', urlPath: `/v1/bookings/${id}`, target: ok, sandbox: missing, learned: false, unknownIds: [id] });
    const report = recorder.report();
    expect(report.notCompared).toEqual([expect.objectContaining({ reason: 'unknown-id', count: 1 })]);
    expect(report.notCompared![0]!.detail).toMatch(/^unknown-id: it carries book_x-\[redacted workspace key, \d+ chars\], which/);
    expect(JSON.stringify(report)).not.toContain(KEYS.sandboxFull);
  });
});
