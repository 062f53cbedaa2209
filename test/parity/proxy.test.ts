import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/sandbox.ts';
import { firstBookableDeparture } from '../../src/resources/departures/bookable.ts';
import { DEPARTURES } from '../../src/resources/departures/collections.ts';
import { PEOPLE } from '../../src/resources/people/collections.ts';
import { PRODUCTS } from '../../src/resources/products/collections.ts';
import { EXTENSIONS, PRICING_OPTIONS } from '../../src/resources/catalog/collections.ts';
import { BOOKINGS, PASSENGERS } from '../../src/resources/bookings/collections.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { call, fakeTarget, type FakeTarget } from './helpers/fake-target.ts';
import { stubRecorder } from './helpers/stub-recorder.ts';

/**
 * The parity proxy, against a fake target: a
 * second sandbox behind the test's planting proxy. No internet.
 */
let target: FakeTarget;
let proxied: Sandbox;
let recorder: ReturnType<typeof stubRecorder>;
let recordDir: string;
let ws: string;

const NEW_UUID = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

beforeAll(async () => {
  target = await fakeTarget();
  recordDir = mkdtempSync(join(tmpdir(), 'parity-record-'));
  proxied = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target: target.url, record: recordDir } });
  recorder = stubRecorder();
  proxied.context.parity.recorder = recorder;
  ws = proxied.proxy!.workspaceId;
});
afterAll(async () => {
  await proxied?.stop();
  await target?.stop();
  rmSync(recordDir, { recursive: true, force: true });
});

const viaProxy = (method: string, path: string, body?: unknown) => call(proxied.proxy!.url, method, path, KEYS.sandboxFull, body);
async function lastExchange() {
  await proxied.proxy!.settled();
  return recorder.exchanges.at(-1)!;
}

describe('sandbox proxy', () => {
  it('replays in the sandbox-mode fixture workspace, with its rate limits in report mode', async () => {
    expect(ws).toBe(proxied.workspaces.find((w) => w.mode === 'sandbox')!.id);
    expect(proxied.proxy!.url).not.toBe(proxied.url);
    const res = await viaProxy('GET', '/v1/products?limit=1');
    expect(res.status).toBe(200);
    const exchange = await lastExchange();
    expect(exchange.sandbox?.status).toBe(200);
    expect(exchange.sandbox?.headers['x-ratelimit-limit']).toBeDefined();
    expect(proxied.store.get<{ id: string; rateLimits?: string }>('workspaces', '_global', ws)?.rateLimits).toBe('report');
  });

  it('gives the client the target answer byte for byte: status, headers, body', async () => {
    target.plant = (_method, path, answer) => {
      if (path !== '/v1/products') return answer;
      // a form no sandbox would write: odd spacing, a header of its own, another status
      const text = JSON.stringify(JSON.parse(answer.body.toString()), null, 3).replace(/\n/g, '\r\n');
      return { status: 203, headers: { ...answer.headers, 'x-planted': 'yes', 'content-type': 'application/json; charset=latin1' }, body: Buffer.from(text) };
    };
    try {
      const res = await viaProxy('GET', '/v1/products?limit=2');
      const sent = target.sent.at(-1)!;
      expect(res.status).toBe(203);
      expect(res.bytes.equals(sent.body)).toBe(true);
      for (const [name, value] of Object.entries(sent.headers)) expect(res.headers.get(name), name).toBe(String(value));
      const exchange = await lastExchange();
      expect(exchange.target.status).toBe(203);
      expect(exchange.requestId).toBe(sent.headers['x-request-id']);
    } finally {
      target.plant = null;
    }
  });

  it('pairs ids across create booking -> add passengers -> PATCH -> GET', async () => {
    const today = proxied.clock.isoIn(ws).slice(0, 10);
    const departure = firstBookableDeparture(proxied.store, ws, today)!.departure;
    // same fixtures and seed: the target holds the same departure and people
    expect(DEPARTURES.in(target.sandbox.store).has(ws, departure.id)).toBe(true);
    const person = PEOPLE.in(proxied.store)
      .list(ws)
      .find((p) => p.dateOfBirth === null || p.dateOfBirth < '2000-01-01')!;

    const created = await viaProxy('POST', '/v1/bookings', { departureId: departure.id, adults: 1 });
    expect(created.status).toBe(201);
    const targetBookingId: string = created.json.data.id;
    const createExchange = await lastExchange();
    const sandboxBookingId = (createExchange.sandbox!.body as { data: { id: string } }).data.id;
    expect(sandboxBookingId).not.toBe(targetBookingId);
    expect(BOOKINGS.in(proxied.store).has(ws, sandboxBookingId)).toBe(true);
    expect(BOOKINGS.in(proxied.store).has(ws, targetBookingId)).toBe(false);

    const added = await viaProxy('POST', `/v1/bookings/${targetBookingId}/passengers`, { passengers: [{ personId: person.id, role: 'lead' }] });
    expect(added.status).toBe(200);
    const passengersExchange = await lastExchange();
    expect(passengersExchange.sandbox?.status).toBe(200);
    expect(
      PASSENGERS.in(proxied.store)
        .list(ws)
        .filter((p) => p.bookingId === sandboxBookingId),
    ).toHaveLength(1);

    const patched = await viaProxy('PATCH', `/v1/bookings/${targetBookingId}`, { status: 'confirmed' });
    expect(patched.status).toBe(200);
    expect((await lastExchange()).sandbox?.status).toBe(200);
    expect(BOOKINGS.in(proxied.store).get(ws, sandboxBookingId)?.status).toBe('confirmed');

    const read = await viaProxy('GET', `/v1/bookings/${targetBookingId}`);
    expect(read.json.data?.id ?? read.json.id).toBe(targetBookingId);
    const readExchange = await lastExchange();
    expect(readExchange.sandbox?.status).toBe(200);
    const sandboxRead = readExchange.sandbox?.body as { data?: { id: string; status: string }; id?: string; status?: string };
    expect(sandboxRead.data?.id ?? sandboxRead.id).toBe(sandboxBookingId);
    expect(sandboxRead.data?.status ?? sandboxRead.status).toBe('confirmed');
    expect(readExchange.unknownIds).toEqual([]);
    expect(readExchange.learned).toBe(false);
  });

  it('learns records the sandbox does not know, and records them as fixtures that start --fixtures loads', async () => {
    // the user's real catalog: a product, a departure and a person only the target has
    const store = target.sandbox.store;
    const product = { ...PRODUCTS.in(store).list(ws)[0]!, id: `prod_${NEW_UUID(1)}`, title: 'Only on the real account', slug: 'only-on-the-real-account' };
    const departure = {
      ...DEPARTURES.in(store)
        .list(ws)
        .find((d) => d.productId === PRODUCTS.in(store).list(ws)[0]!.id)!,
      id: `dept_${NEW_UUID(2)}`,
      productId: product.id,
    };
    const person = { ...PEOPLE.in(store).list(ws)[0]!, id: `ppl_${NEW_UUID(3)}`, email: 'real.person@example.com' };
    const template = PRODUCTS.in(store).list(ws)[0]!.id;
    const options = PRICING_OPTIONS.in(store)
      .list(ws)
      .filter((o) => o.productId === template)
      .map((o, i) => ({ ...o, id: `p_${NEW_UUID(10 + i)}`, productId: product.id }));
    const extensions = EXTENSIONS.in(store)
      .list(ws)
      .filter((e) => e.productId === template)
      .map((e, i) => ({ ...e, id: `ext_${NEW_UUID(20 + i)}`, productId: product.id }));
    expect(options.length).toBeGreaterThan(0);
    await store.commit([
      PRODUCTS.putOp(ws, product),
      DEPARTURES.putOp(ws, departure),
      PEOPLE.putOp(ws, person),
      ...options.map((o) => PRICING_OPTIONS.putOp(ws, o)),
      ...extensions.map((e) => EXTENSIONS.putOp(ws, e)),
    ]);

    for (const path of [
      `/v1/products/${product.id}`,
      `/v1/departures/${departure.id}`,
      `/v1/people/${person.id}`,
      `/v1/products/${product.id}/pricing/options`,
    ]) {
      const res = await viaProxy('GET', path);
      expect(res.status, path).toBe(200);
      const exchange = await lastExchange();
      // the replay ran before it was learned: a 404, or a page without the product's options
      expect(exchange.sandbox?.status, path).toBe(path.endsWith('/options') ? 200 : 404);
      expect(exchange.learned, path).toBe(true);
      expect(exchange.unknownIds, path).toEqual([]);
    }
    expect(PRODUCTS.in(proxied.store).get(ws, product.id)?.title).toBe('Only on the real account');
    expect(DEPARTURES.in(proxied.store).get(ws, departure.id)?.productId).toBe(product.id);
    expect(PEOPLE.in(proxied.store).get(ws, person.id)?.email).toBe('real.person@example.com');
    expect(
      PRICING_OPTIONS.in(proxied.store)
        .list(ws)
        .filter((o) => o.productId === product.id),
    ).toHaveLength(options.length);

    // a booking on the real departure now happens on both sides
    const booked = await viaProxy('POST', '/v1/bookings', { departureId: departure.id, adults: 1 });
    expect(booked.status).toBe(201);
    const bookedExchange = await lastExchange();
    expect(bookedExchange.sandbox?.status).toBe(201);
    expect(bookedExchange.unknownIds).toEqual([]);

    // asked again, the sandbox knows it: compared as usual, not learned again
    await viaProxy('GET', `/v1/people/${person.id}`);
    const again = await lastExchange();
    expect(again.sandbox?.status).toBe(200);
    expect(again.learned).toBe(false);

    await proxied.proxy!.stop();
    const text = readFileSync(join(recordDir, 'recorded.json'), 'utf8');
    expect(text).not.toContain(KEYS.sandboxFull);
    expect(text).not.toMatch(/authorization/i);
    const recorded = await createSandbox({ listen: false, storage: 'memory', clock: 'manual', fixturesDir: recordDir });
    try {
      const key = recorded.workspaces[0]!.keys[0]!.key;
      const get = (path: string) => recorded.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${key}` } });
      expect((await get(`/v1/products/${product.id}`)).statusCode).toBe(200);
      expect((await get(`/v1/departures/${departure.id}`)).json().data).toMatchObject({
        id: departure.id,
        productId: product.id,
        startDate: departure.startDate,
      });
      expect((await get(`/v1/people/${person.id}`)).json()).toMatchObject({ id: person.id, firstName: person.firstName });
      // its prices came along: the real departure can be booked offline
      const amounts = (await get(`/v1/products/${product.id}/pricing/options`))
        .json()
        .data.map((o: { code: string; amount: number }) => `${o.code} ${o.amount}`);
      expect(amounts.sort()).toEqual(
        options
          .filter((o) => o.active)
          .map((o) => `${o.code} ${o.amount}`)
          .sort(),
      );
      const offline = await recorded.app.inject({
        method: 'POST',
        url: '/v1/bookings',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ departureId: departure.id, adults: 1 }),
      });
      expect(offline.statusCode, offline.body).toBe(201);
    } finally {
      await recorded.stop();
    }
  });
});

describe('--record of a departure learned on a product the sandbox already held', () => {
  it('writes the product, its prices and extensions beside the departure, so the file books it offline', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'parity-record-parent-'));
    const other = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target: target.url, record: dir } });
    try {
      other.context.parity.recorder = stubRecorder();
      const store = target.sandbox.store;
      const known = PRODUCTS.in(store).list(ws)[0]!; // both sides hold the fixtures' products
      const departure = {
        ...DEPARTURES.in(store)
          .list(ws)
          .find((d) => d.productId === known.id)!,
        id: `dept_${NEW_UUID(40)}`,
      };
      // the real account's extensions of that product: the same codes under other ids
      const extensions = EXTENSIONS.in(store)
        .list(ws)
        .filter((e) => e.productId === known.id);
      expect(extensions.length).toBeGreaterThan(0);
      await store.commit([
        DEPARTURES.putOp(ws, departure),
        ...extensions.flatMap((e, i) => [EXTENSIONS.deleteOp(ws, e.id), EXTENSIONS.putOp(ws, { ...e, id: `ext_${NEW_UUID(50 + i)}` })]),
      ]);
      expect((await call(other.proxy!.url, 'GET', `/v1/departures/${departure.id}`, KEYS.sandboxFull)).status).toBe(200);
      // read after the departure: the target's extensions replace the sandbox's copies in the file
      expect((await call(other.proxy!.url, 'GET', `/v1/products/${known.id}/extensions`, KEYS.sandboxFull)).status).toBe(200);
      await other.proxy!.settled();
      expect(DEPARTURES.in(other.store).get(ws, departure.id)).toBeDefined();
      await other.proxy!.stop();
      const fixture = JSON.parse(readFileSync(join(dir, 'recorded.json'), 'utf8')) as {
        products: { id: string; extensions: { code: string }[] }[];
        departures: { id: string }[];
      };
      expect(fixture.departures.map((d) => d.id)).toEqual([departure.id]);
      expect(fixture.products.map((p) => p.id)).toEqual([known.id]);
      expect(fixture.products[0]!.extensions.map((e) => e.code).sort()).toEqual(
        extensions
          .filter((e) => e.active)
          .map((e) => e.code)
          .sort(),
      );
      const recorded = await createSandbox({ listen: false, storage: 'memory', clock: 'manual', fixturesDir: dir });
      try {
        const key = recorded.workspaces[0]!.keys[0]!.key;
        const offline = await recorded.app.inject({
          method: 'POST',
          url: '/v1/bookings',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          payload: JSON.stringify({ departureId: departure.id, adults: 1 }),
        });
        expect(offline.statusCode, offline.body).toBe(201);
      } finally {
        await recorded.stop();
      }
    } finally {
      await other.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an id the sandbox does not know and cannot learn', () => {
  it("goes to unknownIds, with the sandbox's answer for the recorder to weigh", async () => {
    const t = await fakeTarget();
    const s = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target: t.url } });
    const rec = stubRecorder();
    s.context.parity.recorder = rec;
    try {
      // a booking made on the real account before the proxy ran: never paired, bookings are not learned
      const made = await call(t.url, 'POST', '/v1/bookings', KEYS.sandboxFull, {
        departureId: firstBookableDeparture(t.sandbox.store, s.proxy!.workspaceId, t.sandbox.clock.iso().slice(0, 10))!.departure.id,
        adults: 1,
      });
      const id: string = made.json.data.id;
      await call(s.proxy!.url, 'GET', `/v1/bookings/${id}`, KEYS.sandboxFull);
      await s.proxy!.settled();
      expect(rec.exchanges[0]).toMatchObject({ learned: false, unknownIds: [id], sandbox: { status: 404 }, target: { status: 200 } });
    } finally {
      await s.stop();
      await t.stop();
    }
  });
});
