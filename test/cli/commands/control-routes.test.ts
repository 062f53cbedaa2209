import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECORD_SCHEMAS } from '../../../src/fixtures/record-schemas.ts';
import type { Booking, Passenger } from '../../../src/resources/bookings/schemas.ts';
import type { Departure } from '../../../src/resources/departures/schemas.ts';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';

/**
 * The control routes the scripting commands added: organization keys
 * (src/resources/organizations/control.ts) and seeding (src/control/seed.ts). In-process,
 * with every response body checked against its schema.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox();
});
afterAll(() => t.sandbox.stop());

const control = (method: string, path: string, body?: unknown) =>
  t.request(method, `/__sandbox${path}`, { key: null, ...(body !== undefined ? { body } : {}) });
type Rows = Record<string, { id: string }[]>;
const exportRows = async (ws: string): Promise<Rows> => (await control('GET', `/workspaces/${ws}/export`)).json().data;

describe('organization keys through the control plane', () => {
  it('lists organizations, issues a working key shown once, lists it, revokes it as the control plane', async () => {
    const orgs = (await control('GET', `/organizations?workspaceId=${t.liveWorkspaceId}`)).json().data;
    expect(orgs.length).toBeGreaterThan(0);
    const org = orgs[0];
    const created = await control('POST', `/organizations/${org.id}/api-keys`, { scopes: ['products:read'], rateLimitPolicy: { rps: 2, rpm: 50, burst: 2 } });
    expect(created.statusCode).toBe(201);
    const key = created.json().data;
    expect(key).toMatchObject({ organizationId: org.id, issuedByWorkspaceId: t.liveWorkspaceId, scopes: ['products:read'], status: 'active' });
    expect(key.key).toMatch(/^org_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}$/);
    expect((await t.request('GET', '/v1/products?limit=1', { key: key.key })).statusCode).toBe(200);

    const listed = (await control('GET', `/org-keys?workspaceId=${t.liveWorkspaceId}`)).json().data;
    const row = listed.find((k: { id: string }) => k.id === key.id);
    expect(row).toMatchObject({ organizationName: org.name, keyPrefix: key.keyPrefix });
    expect(JSON.stringify(listed)).not.toContain(key.key);

    const revoked = await control('DELETE', `/org-keys/${key.id}`);
    expect(revoked.json().data).toMatchObject({ id: key.id, status: 'revoked', revokedBy: 'sandbox-control-plane' });
    expect((await t.request('GET', '/v1/products?limit=1', { key: key.key })).statusCode).toBe(401);
    expect((await control('DELETE', `/org-keys/${key.id}`)).statusCode).toBe(409);
  });

  it('answers 404 for unknown organizations and keys, 400 for a wrong id prefix or body', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    expect((await control('POST', `/organizations/org_${uuid}/api-keys`, {})).statusCode).toBe(404);
    expect((await control('DELETE', `/org-keys/orgkey_${uuid}`)).statusCode).toBe(404);
    expect((await control('DELETE', `/org-keys/prod_${uuid}`)).statusCode).toBe(400);
    const org = (await control('GET', '/organizations')).json().data[0];
    expect((await control('POST', `/organizations/${org.id}/api-keys`, { scopes: ['nope'] })).statusCode).toBe(400);
    expect((await control('GET', `/org-keys?workspaceId=wksp_${uuid}`)).statusCode).toBe(404);
  });
});

describe('POST /__sandbox/seed', () => {
  it('adds products, departures, people and bookings whose rows all parse and whose seats add up', async () => {
    const ws = t.sandboxWorkspaceId;
    const before = await exportRows(ws);
    const res = await control('POST', '/seed', { workspaceId: ws, products: 6, bookings: 60, seed: 11 });
    expect(res.statusCode).toBe(200);
    const { created, updated } = res.json().data;
    expect(created.products).toBe(6);
    expect(created.bookings).toBeGreaterThan(40);
    expect(created.departures).toBeGreaterThanOrEqual(1);
    expect(created.passengers).toBeGreaterThanOrEqual(created.bookings);
    expect(updated.departures).toBeGreaterThan(0);
    const after = await exportRows(ws);
    for (const name of ['products', 'pricingOptions', 'departures', 'people', 'bookings', 'passengers', 'bookingItems'] as const) {
      expect(after[name]!.length - before[name]!.length).toBe(created[name]);
      for (const row of after[name]!) expect(RECORD_SCHEMAS[name]!.safeParse(row).error).toBeUndefined();
    }
    // every departure's taken seats are exactly those of its live bookings (fixtures and seeded ones alike)
    const bookings = after.bookings as unknown as Booking[];
    for (const d of after.departures as unknown as Departure[]) {
      const taken = bookings.filter((b) => b.departureId === d.id && b.status !== 'cancelled').reduce((n, b) => n + b.adults + b.children, 0);
      expect(d.capacity - d.seatsLeft).toBe(taken);
    }
    const people = new Set(after.people!.map((p) => p.id));
    const passengers = after.passengers as unknown as Passenger[];
    for (const b of bookings) {
      expect(people.has(b.customerId!)).toBe(true);
      expect(passengers.filter((p) => p.bookingId === b.id)).toHaveLength(b.adults + b.children + b.infants);
    }
    const unique = (values: string[]) => new Set(values).size === values.length;
    expect(unique(bookings.map((b) => b.code))).toBe(true);
    expect(unique((after.products as unknown as { slug: string }[]).map((p) => p.slug))).toBe(true);
    expect(unique((after.people as unknown as { email: string }[]).map((p) => p.email.toLowerCase()))).toBe(true);
  });

  it('is deterministic for the same seed and state, and a second run adds rather than overwrites', async () => {
    const ws = t.liveWorkspaceId;
    expect((await control('POST', '/snapshots', { name: 'before-seed' })).statusCode).toBe(201);
    const first = (await control('POST', '/seed', { workspaceId: ws, products: 2, bookings: 10, seed: 5 })).json().data;
    const rowsA = await exportRows(ws);
    await control('POST', '/snapshots/before-seed/restore');
    await control('POST', '/seed', { workspaceId: ws, products: 2, bookings: 10, seed: 5 });
    const rowsB = await exportRows(ws);
    expect(rowsB.bookings).toEqual(rowsA.bookings);
    expect(rowsB.products).toEqual(rowsA.products);
    const again = (await control('POST', '/seed', { workspaceId: ws, products: 2, bookings: 10, seed: 5 })).json().data;
    expect(again.created.products).toBe(first.created.products);
    expect((await exportRows(ws)).products!.length).toBe(rowsA.products!.length + 2);
  });

  it('refuses an unknown workspace (404) and out-of-range counts (400)', async () => {
    expect((await control('POST', '/seed', { workspaceId: 'wksp_00000000-0000-4000-8000-000000000000' })).statusCode).toBe(404);
    expect((await control('POST', '/seed', { workspaceId: t.liveWorkspaceId, products: -1 })).statusCode).toBe(400);
    expect((await t.request('GET', '/v1/products?limit=1', { key: KEYS.liveFull })).statusCode).toBe(200);
  });
});
