import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox.ts';
import { firstBookableDeparture } from '../../src/resources/departures/bookable.ts';
import { PEOPLE } from '../../src/resources/people/collections.ts';
import { PRODUCTS } from '../../src/resources/products/collections.ts';
import type { Difference } from '../../src/parity/types.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { call, fakeTarget, type FakeTarget, type PlantedAnswer } from './helpers/fake-target.ts';

/**
 * End to end: the proxy with its real recorder, in front of a fake target (a
 * second sandbox, same fixtures and seed) whose planting proxy plants one difference of every kind.
 * The report lists exactly those, with their counts, and nothing for the answers left identical.
 */
let target: FakeTarget;
let proxied: Sandbox;

beforeAll(async () => {
  target = await fakeTarget();
  proxied = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target: target.url } });
});
afterAll(async () => {
  await proxied?.stop();
  await target?.stop();
});

const json = (answer: PlantedAnswer) => JSON.parse(answer.body.toString('utf8'));
const withBody = (answer: PlantedAnswer, body: unknown, status = answer.status): PlantedAnswer => ({
  ...answer,
  status,
  body: Buffer.from(JSON.stringify(body)),
});

/** Each planted difference, by the operation it is planted on. */
function plant(method: string, path: string, answer: PlantedAnswer): PlantedAnswer {
  if (method === 'GET' && path === '/v1/products') {
    const page = json(answer);
    for (const item of page.data) {
      item.brand = 'Acme'; // missing-field: the target has it, the sandbox does not
      delete item.summary; // extra-field: the sandbox has it, the target does not
      item.durationDays = String(item.durationDays); // type
    }
    return withBody(answer, page);
  }
  if (method === 'GET' && path.startsWith('/v1/products/')) {
    const body = json(answer);
    (body.data ?? body).status = 'published'; // enum: outside the documented set
    return withBody(answer, body);
  }
  if (method === 'GET' && path.startsWith('/v1/people/')) {
    return { ...answer, headers: { ...answer.headers, 'x-ratelimit-reset': `${answer.headers['x-ratelimit-reset']}000` } }; // header: milliseconds
  }
  if (method === 'GET' && path.startsWith('/v1/departures/')) {
    return withBody(answer, { error: 'Departure is not available' }, 410); // status
  }
  if (method === 'POST' && path === '/v1/bookings' && answer.status === 400) {
    return withBody(answer, { ...json(answer), code: 'BAD_REQUEST' }); // error: another code
  }
  return answer;
}

describe('the report through the proxy', () => {
  it('lists exactly the planted differences, with their counts, and nothing for identical answers', async () => {
    const ws = proxied.proxy!.workspaceId;
    const store = proxied.store;
    const product = PRODUCTS.in(store).list(ws)[0]!;
    const person = PEOPLE.in(store).list(ws)[0]!;
    const departure = firstBookableDeparture(store, ws, proxied.clock.isoIn(ws).slice(0, 10))!.departure;
    const send = (method: string, path: string, body?: unknown) => call(proxied.proxy!.url, method, path, KEYS.sandboxFull, body);
    // identical answers first: nothing to report
    await send('GET', '/v1/products?limit=5');
    await send('GET', '/v1/bookings?limit=3');
    await send('GET', `/v1/people/${person.id}`);
    await send('GET', `/v1/departures/${departure.id}`);
    // a booking made on the real account behind the proxy's back: an id the sandbox cannot know (made
    // after the booking list above, whose page would otherwise differ by a record only the target has)
    const earlier = await call(target.url, 'POST', '/v1/bookings', KEYS.sandboxFull, { departureId: departure.id, adults: 1 });
    expect(earlier.status).toBe(201);
    target.plant = plant;
    try {
      await send('GET', '/v1/products?limit=5');
      await send('GET', '/v1/products?limit=5&offset=5');
      await send('GET', `/v1/products/${product.id}`);
      await send('GET', `/v1/people/${person.id}`);
      await send('GET', `/v1/departures/${departure.id}`);
      await send('POST', '/v1/bookings', { departureId: departure.id, adults: 'two' });
      await send('GET', `/v1/bookings/${earlier.json.data.id}`);
    } finally {
      target.plant = null;
    }
    await proxied.proxy!.settled();

    const res = await call(proxied.proxy!.url, 'GET', '/__sandbox/parity', null);
    expect(res.status).toBe(200);
    const report = res.json.data as { requests: number; compared: number; differences: Difference[] };
    const lines = report.differences.map((d) => `${d.kind} ${d.method} ${d.path} ${d.field} x${d.count}`).sort();
    expect(lines).toEqual(
      [
        'missing-field GET /v1/products data[].brand x2',
        'extra-field GET /v1/products data[].summary x2',
        'type GET /v1/products data[].durationDays x2',
        'enum GET /v1/products/{id} data.status x1',
        'header GET /v1/people/{id} X-RateLimit-Reset x1',
        'status GET /v1/departures/{id}  x1',
        'error POST /v1/bookings code x1',
        'unknown-id GET /v1/bookings/{id}  x1',
      ].sort(),
    );
    const byKind = new Map(report.differences.map((d) => [d.kind, d]));
    expect(byKind.get('status')).toMatchObject({ target: 410, sandbox: 200 });
    expect(byKind.get('error')).toMatchObject({ target: 'BAD_REQUEST', sandbox: 'VALIDATION_400' });
    expect(byKind.get('unknown-id')).toMatchObject({ target: earlier.json.data.id });
    expect(byKind.get('header')).toMatchObject({ target: 'integer (Unix milliseconds)', sandbox: 'integer (Unix seconds)' });
    // every difference names the request id of its first example, as the target gave it
    const first = byKind.get('missing-field')!;
    expect(target.sent.some((a) => a.headers['x-request-id'] === first.requestId)).toBe(true);
  });
});
