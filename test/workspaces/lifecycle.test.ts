import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.ts';
import type { Departure } from '../../src/resources/departures/schemas.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

let t: TestSandbox;
let template: Departure;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
  template = t.sandbox.store.list<Departure>('departures', t.sandboxWorkspaceId).find((d) => d.seatsLeft === 1 && d.status !== 'sold_out')!;
});
afterAll(() => t.sandbox.stop());

const control = (method: string, path: string, body?: unknown) =>
  t.request(method, `/__sandbox${path}`, { key: null, ...(body === undefined ? {} : { body }) });
async function create(body: Record<string, unknown> = {}) {
  const res = await control('POST', '/workspaces', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; name: string; mode: string; keys: { key: string; scopes: string[] | null }[] };
}
/** the template's one departure with a last seat (bookable with one adult), found in any copy by its date */
async function bookable(workspaceId: string): Promise<Departure> {
  const exported = (await control('GET', `/workspaces/${workspaceId}/export`)).json().data as { departures: Departure[] };
  return exported.departures.find((d) => d.startDate === template.startDate && d.capacity === template.capacity)!;
}

describe('workspaces on demand', () => {
  it('deleting a workspace leaves the other workspaces untouched', async () => {
    const [a, b] = [await create(), await create()];
    const key = (w: typeof a) => w.keys[0]!.key;
    const departure = await bookable(b.id);
    const booked = await t.request('POST', '/v1/bookings', { key: key(b), body: { departureId: departure.id, adults: 1 } });
    expect(booked.statusCode, booked.body).toBe(201);
    await control('POST', `/workspaces/${b.id}/clock/advance`, { ms: 120_000 });
    const before = (await control('GET', `/workspaces/${b.id}/export`)).json().data;
    const fixtureBefore = (await control('GET', `/workspaces/${t.sandboxWorkspaceId}/export`)).json().data;

    // a's pending work: a gallery deletion job (a timer on a's clock) and a webhook outbox row
    const file = t.sandbox.store.list<{ id: string; status: string }>('galleryFiles', a.id).find((f) => f.status === 'active')!;
    expect((await t.request('DELETE', `/v1/gallery/files/${file.id}`, { key: key(a) })).statusCode).toBeLessThan(300);
    expect(t.sandbox.clock.stateOf(a.id).pendingTimers).toBe(1);
    const timersBefore = t.sandbox.clock.state().pendingTimers;
    const deleted = await control('DELETE', `/workspaces/${a.id}`);
    expect(t.sandbox.clock.state().pendingTimers).toBe(timersBefore - 1);
    for (const collection of ['jobs', 'galleryFiles', 'products', 'webhookSubscriptions'])
      expect(t.sandbox.store.list(collection, a.id), collection).toHaveLength(0);
    expect(deleted.json()).toEqual({ data: { id: a.id, deleted: true } });
    expect((await t.request('GET', '/v1/products?limit=1', { key: key(a) })).statusCode).toBe(401);
    expect((await control('GET', `/workspaces/${a.id}`)).statusCode).toBe(404);
    expect((await control('DELETE', `/workspaces/${a.id}`)).statusCode).toBe(404);

    expect((await control('GET', `/workspaces/${b.id}/export`)).json().data).toEqual(before);
    expect((await control('GET', `/workspaces/${t.sandboxWorkspaceId}/export`)).json().data).toEqual(fixtureBefore);
    expect((await t.request('GET', `/v1/bookings/${booked.json().data.id}`, { key: key(b) })).statusCode).toBe(200);
    expect((await control('GET', `/workspaces/${b.id}/clock`)).json().data.offsetMs).toBe(120_000);
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull })).statusCode).toBe(200);
  });

  it('lists created workspaces as created; fixture workspaces cannot be deleted', async () => {
    const w = await create({ template: 'Aurora Tours', name: 'live copy' });
    expect(w.mode).toBe('live');
    const listed = (await control('GET', '/workspaces')).json().data as { id: string; created: boolean; templateId: string | null }[];
    expect(listed.find((x) => x.id === w.id)).toMatchObject({ created: true, templateId: t.liveWorkspaceId });
    expect(listed.find((x) => x.id === t.liveWorkspaceId)).toMatchObject({ created: false, templateId: null });
    const refused = await control('DELETE', `/workspaces/${t.liveWorkspaceId}`);
    expect(refused.statusCode).toBe(409);
    expect((await control('POST', '/workspaces', { template: 'nope' })).statusCode).toBe(400);
  });

  it('copies the whole template with fresh ids and consistent references, and a products:read key', async () => {
    const w = await create();
    const copy = (await control('GET', `/workspaces/${w.id}/export`)).json().data;
    const template = (await control('GET', `/workspaces/${t.sandboxWorkspaceId}/export`)).json().data;
    for (const name of ['products', 'departures', 'bookings', 'passengers', 'bookingItems', 'people', 'galleryFiles', 'policies', 'webhookSubscriptions']) {
      expect(copy[name].length, name).toBe(template[name].length);
      const templateIds = new Set(template[name].map((r: { id: string }) => r.id));
      for (const row of copy[name]) expect(templateIds.has(row.id), name).toBe(false);
    }
    const ids = (name: string) => new Set(copy[name].map((r: { id: string }) => r.id));
    const [products, departures, people, bookings] = [ids('products'), ids('departures'), ids('people'), ids('bookings')];
    for (const b of copy.bookings) {
      expect(departures.has(b.departureId)).toBe(true);
      expect(products.has(b.productId)).toBe(true);
    }
    for (const p of copy.passengers) {
      expect(bookings.has(p.bookingId)).toBe(true);
      expect(people.has(p.personId)).toBe(true);
    }
    for (const p of copy.policies) expect(p.workspace_id).toBe(w.id);
    expect(copy.webhookSubscriptions[0].secret).not.toBe(template.webhookSubscriptions[0].secret);
    const read = w.keys[1]!.key;
    expect((await t.request('GET', '/v1/products?limit=1', { key: read })).statusCode).toBe(200);
    expect((await t.request('POST', '/v1/bookings', { key: read, body: {} })).statusCode).toBe(403);
  });

  it('snapshots and restores one workspace alone', async () => {
    const w = await create();
    const key = w.keys[0]!.key;
    const departure = await bookable(w.id);
    expect((await control('POST', `/workspaces/${w.id}/snapshots`, { name: 'clean' })).statusCode).toBe(201);
    const booked = await t.request('POST', '/v1/bookings', { key, body: { departureId: departure.id, adults: 1 } });
    expect(booked.statusCode).toBe(201);
    const fixtureBooking = await t.request('POST', '/v1/bookings', {
      key: KEYS.sandboxFull,
      body: { departureId: (await bookable(t.sandboxWorkspaceId)).id, adults: 1 },
    });
    expect(fixtureBooking.statusCode).toBe(201);
    const restored = await control('POST', `/workspaces/${w.id}/snapshots/clean/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect((await t.request('GET', `/v1/bookings/${booked.json().data.id}`, { key })).statusCode).toBe(404);
    expect((await t.request('GET', `/v1/departures/${departure.id}`, { key })).json().data.seatsLeft).toBe(departure.seatsLeft);
    expect((await t.request('GET', `/v1/bookings/${fixtureBooking.json().data.id}`, { key: KEYS.sandboxFull })).statusCode).toBe(200);
    expect((await control('POST', `/workspaces/${w.id}/snapshots/nope/restore`)).statusCode).toBe(404);
  });

  it('a global reset keeps created workspaces and their keys, back at their template', async () => {
    const w = await create();
    const key = w.keys[0]!.key;
    const booked = await t.request('POST', '/v1/bookings', { key, body: { departureId: (await bookable(w.id)).id, adults: 1 } });
    expect(booked.statusCode, booked.body).toBe(201);
    expect((await control('POST', '/reset')).statusCode).toBe(200);
    expect((await t.request('GET', `/v1/bookings/${booked.json().data.id}`, { key })).statusCode).toBe(404);
    expect((await control('GET', `/workspaces/${w.id}`)).json().data).toMatchObject({ created: true });
  });
});

describe('created workspaces on disk', () => {
  it('survive a restart with their data and keys', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tcs-ws-'));
    const options = { listen: false, clock: 'manual' as const, storage: join(dir, 'db.json') };
    try {
      let sandbox = await createSandbox(options);
      const created = await sandbox.app.inject({ method: 'POST', url: '/__sandbox/workspaces', payload: { name: 'kept' } });
      const { id, keys } = created.json().data as { id: string; keys: { key: string }[] };
      const auth = { authorization: `Bearer ${keys[0]!.key}` };
      const exported = (await sandbox.app.inject({ method: 'GET', url: `/__sandbox/workspaces/${id}/export` })).json().data as { departures: Departure[] };
      const departure = exported.departures.find((d) => d.seatsLeft === 1 && d.status !== 'sold_out')!;
      const booked = await sandbox.app.inject({ method: 'POST', url: '/v1/bookings', headers: auth, payload: { departureId: departure.id, adults: 1 } });
      expect(booked.statusCode, booked.body).toBe(201);
      await sandbox.stop();
      sandbox = await createSandbox(options);
      const listed = (await sandbox.app.inject({ method: 'GET', url: '/__sandbox/workspaces' })).json().data;
      expect(listed.find((x: { id: string }) => x.id === id)).toMatchObject({ name: 'kept', created: true });
      expect((await sandbox.app.inject({ method: 'GET', url: `/v1/bookings/${booked.json().data.id}`, headers: auth })).statusCode).toBe(200);
      await sandbox.stop();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
