import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Departure } from '../../src/resources/departures/schemas.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * Parallel test workers (README, "Parallel test workers"): eight concurrent "workers" on one sandbox, each in a
 * workspace of its own (POST /__sandbox/workspaces). Every step runs for all
 * workers at once; after each, every worker checks that it sees only its own
 * bookings, clock, limits and resets. Rate limits are enforced (sandbox tier:
 * 100/min, burst 5/s); a worker refills its burst by advancing its own clock.
 */
const WORKERS = 8;
const PHONE = '+14155550199';
let t: TestSandbox;
let template: Departure;

interface Worker {
  i: number;
  id: string;
  key: string;
  departureId: string;
  bookingId: string;
}

beforeAll(async () => {
  t = await testSandbox();
  template = t.sandbox.store.list<Departure>('departures', t.sandboxWorkspaceId).find((d) => d.seatsLeft === 1 && d.status !== 'sold_out')!;
  expect(template).toBeDefined();
});
afterAll(() => t.sandbox.stop());

const control = (method: string, path: string, body?: unknown) =>
  t.request(method, `/__sandbox${path}`, { key: null, ...(body === undefined ? {} : { body }) });
const api = (w: Worker, method: string, path: string, body?: unknown) => t.request(method, path, { key: w.key, ...(body === undefined ? {} : { body }) });
const all = <T>(workers: Worker[], step: (w: Worker) => Promise<T>) => Promise.all(workers.map(step));
/** 3 s of the worker's own time: its burst bucket (5 tokens at 100/min) refills */
const breathe = async (w: Worker) => expect((await control('POST', `/workspaces/${w.id}/clock/advance`, { ms: 3_000 })).statusCode).toBe(200);

describe('eight parallel workers on one sandbox', () => {
  it('each books the last seat of the same template departure, expires its own code, resets itself and exhausts its own limit, seeing nobody else', async () => {
    const globalBefore = t.sandbox.clock.nowIn(null);
    const workers: Worker[] = await Promise.all(
      Array.from({ length: WORKERS }, async (_, i) => {
        const res = await control('POST', '/workspaces', { name: `worker ${i}` });
        expect(res.statusCode, res.body).toBe(201);
        const data = res.json().data;
        expect(data).toMatchObject({ name: `worker ${i}`, mode: 'sandbox', templateId: t.sandboxWorkspaceId, created: true });
        expect(data.keys.map((k: { scopes: string[] | null }) => k.scopes)).toEqual([null, ['products:read']]);
        return { i, id: data.id, key: data.keys[0].key, departureId: '', bookingId: '' };
      }),
    );
    expect(new Set(workers.map((w) => w.id)).size).toBe(WORKERS);

    // the copy of the template departure: fresh id, same last seat
    await all(workers, async (w) => {
      const exported = (await control('GET', `/workspaces/${w.id}/export`)).json().data as { departures: Departure[] };
      const copy = exported.departures.find((d) => d.startDate === template.startDate && d.seatsLeft === 1)!;
      expect(copy.id).not.toBe(template.id);
      const read = await api(w, 'GET', `/v1/departures/${copy.id}`);
      expect(read.statusCode, read.body).toBe(200);
      w.departureId = copy.id;
    });
    expect(new Set(workers.map((w) => w.departureId)).size).toBe(WORKERS);

    // everyone books the same last seat at once: each wins in its own workspace
    const booked = await all(workers, (w) => api(w, 'POST', '/v1/bookings', { departureId: w.departureId, adults: 1 }));
    for (const [i, res] of booked.entries()) {
      expect(res.statusCode, res.body).toBe(201);
      workers[i]!.bookingId = res.json().data.id;
    }
    await all(workers, breathe);
    await all(workers, async (w) => {
      const departure = (await api(w, 'GET', `/v1/departures/${w.departureId}`)).json().data;
      expect(departure).toMatchObject({ seatsLeft: 0, status: 'sold_out' });
      for (const other of workers) {
        const res = await api(w, 'GET', `/v1/bookings/${other.bookingId}`);
        expect(res.statusCode).toBe(other === w ? 200 : 404);
        if (other !== w) await breathe(w);
      }
    });
    expect(t.sandbox.store.get<Departure>('departures', t.sandboxWorkspaceId, template.id)!.seatsLeft).toBe(1);

    // each advances its own clock past its code's expiry (10 min); nobody else's clock moves
    await all(workers, breathe);
    await all(workers, (w) => api(w, 'POST', '/v1/verify/sms/start', { phone: PHONE }).then((r) => expect(r.statusCode, r.body).toBe(200)));
    const codes = await all(workers, async (w) => {
      const listed = (await control('GET', `/verifications?target=${encodeURIComponent(PHONE)}&workspaceId=${w.id}`)).json().data;
      expect(listed).toHaveLength(1);
      return listed[0].code as string;
    });
    const offset = async (w: Worker) => (await control('GET', `/workspaces/${w.id}/clock`)).json().data.offsetMs as number;
    const before = await all(workers, offset);
    await all(
      workers.filter((w) => w.i % 2 === 0),
      (w) => control('POST', `/workspaces/${w.id}/clock/advance`, { ms: 600_000 }),
    );
    await all(workers, async (w) => {
      const res = await api(w, 'POST', '/v1/verify/sms/confirm', { phone: PHONE, code: codes[w.i] });
      if (w.i % 2 === 0) expect(res.json()).toMatchObject({ code: 'CODE_EXPIRED' });
      else expect(res.statusCode, res.body).toBe(200); // an odd worker's code is still valid: its clock did not move
      expect((await offset(w)) - before[w.i]!).toBe(w.i % 2 === 0 ? 600_000 : 0);
    });
    expect(t.sandbox.clock.nowIn(null)).toBe(globalBefore);

    // the first half resets itself: its booking goes, the others' stay
    const [first, second] = [workers.slice(0, 4), workers.slice(4)];
    await all(first, (w) => control('POST', `/workspaces/${w.id}/reset`).then((r) => expect(r.statusCode, r.body).toBe(200)));
    await all(workers, breathe);
    await all(workers, async (w) => {
      const res = await api(w, 'GET', `/v1/bookings/${w.bookingId}`);
      expect(res.statusCode).toBe(first.includes(w) ? 404 : 200);
      const departure = (await api(w, 'GET', `/v1/departures/${w.departureId}`)).json().data;
      expect(departure.seatsLeft).toBe(first.includes(w) ? 1 : 0);
    });
    expect(second).toHaveLength(4);

    // each exhausts its own limit: the burst of 5 is its own, whatever the others do at the same time
    await all(workers, breathe);
    const counts = await all(workers, async (w) => {
      let ok = 0;
      for (;;) {
        const res = await api(w, 'GET', '/v1/products?limit=1');
        if (res.statusCode === 429) break;
        expect(res.statusCode).toBe(200);
        ok += 1;
      }
      return ok;
    });
    expect(counts).toEqual(Array(WORKERS).fill(5));
    const fixtureProducts = await t.request('GET', '/v1/products?limit=1', { key: 'tcs_test_borealis_full_00000000000000000001' });
    expect(fixtureProducts.statusCode).toBe(200);
  });
});
