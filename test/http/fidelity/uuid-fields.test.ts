import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { createPerson, pickDeparture } from '../booking-flow/helpers.ts';

/** Fields typed uuid answer bare UUIDs; "present after" fields are absent before. */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterAll(() => t.sandbox.stop());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const orgId = () => t.sandbox.store.list<{ id: string }>('organizations', t.liveWorkspaceId)[0]!.id;

describe('uuid-typed fields (point 7)', () => {
  it('passenger person_id is a bare UUID, whichever form personId was sent in', async () => {
    const { departure } = pickDeparture(t);
    const booking = (await t.request('POST', '/v1/bookings', { body: { departureId: departure.id, adults: 2 } })).json().data;
    const [a, b] = [await createPerson(t), await createPerson(t)];
    const res = await t.request('POST', `/v1/bookings/${booking.id}/passengers`, {
      body: { passengers: [{ personId: a.id, role: 'lead' }, { personId: b.id.replace(/^ppl_/, '') }] },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().passengers.map((p: { person_id: string }) => p.person_id)).toEqual([a.id.slice(4), b.id.slice(4)]);
    const read = (await t.request('GET', `/v1/bookings/${booking.id}`)).json().data;
    for (const p of read.passengers) expect(p.person_id).toMatch(UUID);
  });

  it('organization key productIds are bare UUIDs on create and in listings, whichever form was sent', async () => {
    const [p1, p2] = t.sandbox.store.list<{ id: string }>('products', t.liveWorkspaceId);
    const created = await t.request('POST', `/v1/organizations/${orgId()}/api-keys`, { body: { productIds: [p1!.id, p2!.id.slice(5)] } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.productIds).toEqual([p1!.id.slice(5), p2!.id.slice(5)]);
    const listed = (await t.request('GET', `/v1/organizations/${orgId()}/api-keys`)).json().data.find((k: { id: string }) => k.id === created.json().data.id);
    expect(listed.productIds).toEqual([p1!.id.slice(5), p2!.id.slice(5)]);
  });
});

describe('optional fields are absent, not null (point 8)', () => {
  it('an active key has no revokedAt or revokedBy; a revoked one has both; lastUsedAt is a string from the start', async () => {
    const created = (await t.request('POST', `/v1/organizations/${orgId()}/api-keys`, { body: {} })).json().data;
    const find = async () => (await t.request('GET', `/v1/organizations/${orgId()}/api-keys`)).json().data.find((k: { id: string }) => k.id === created.id);
    const active = await find();
    expect(active).not.toHaveProperty('revokedAt');
    expect(active).not.toHaveProperty('revokedBy');
    // "string, present in listings": never used, it reads the key's createdAt
    expect(active.lastUsedAt).toBe(created.createdAt);
    expect(created).not.toHaveProperty('revokedAt');
    await t.request('DELETE', `/v1/organizations/${orgId()}/api-keys/${created.id}`);
    expect(await find()).toMatchObject({ status: 'revoked', revokedAt: expect.any(String), revokedBy: expect.stringMatching(/^wkey_/) });
  });
});
