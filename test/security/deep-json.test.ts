import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';

/**
 * JSON nested deeper than 64 levels is a 400 VALIDATION_400
 * naming the path, on /v1 and on the control plane, through a real socket: a
 * booking whose metadata nests 5,000 deep, or POST /__sandbox/events with such
 * data, would otherwise overflow the stack of JSON.stringify and structuredClone
 * (a 500 INTERNAL_ERROR).
 */
let sandbox: Sandbox;
let liveWs: string;
let departureId: string;

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, host: '127.0.0.1', storage: 'memory', clock: 'manual' });
  liveWs = sandbox.workspaces.find((w) => w.mode === 'live')!.id;
  const departures = sandbox.store.list('departures', liveWs) as unknown as { id: string; seatsLeft: number; status: string; startDate: string }[];
  departureId = departures.find((d) => d.status === 'scheduled' && d.seatsLeft >= 5 && d.startDate > '2026-02-01')!.id;
});
afterAll(() => sandbox.stop());

async function send(
  method: string,
  path: string,
  text: string,
): Promise<{ status: number; body: { code?: string; details?: { message: string }[] } & Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${sandbox.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as never };
}

/** `{"a":{"a":...1...}}`: `levels` nested objects */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
const booking = (metadataLevels: number) => `{"departureId":"${departureId}","adults":1,"metadata":${nested(metadataLevels)}}`;

function expectTooDeep(res: Awaited<ReturnType<typeof send>>, path: RegExp): void {
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(400);
  expect(res.body.code).toBe('VALIDATION_400');
  expect(res.body.details).toHaveLength(1);
  expect(res.body.details![0]!.message).toMatch(path);
  expect(res.body.details![0]!.message).toMatch(/nested deeper than 64 levels/);
}

describe('a /v1 body nested too deep', () => {
  for (const levels of [5_000, 50_000]) {
    it(`refuses a booking whose metadata nests ${levels.toLocaleString('en')} deep, naming the path`, async () => {
      expectTooDeep(await send('POST', '/v1/bookings', booking(levels)), /^body\.metadata\.a\.a\.a\[…\d+ levels…\]\.a\.a: /);
    });
  }

  it('accepts 64 levels (the body and 63 of metadata), and refuses 65', async () => {
    expect((await send('POST', '/v1/bookings', booking(63))).status).toBe(201);
    expectTooDeep(await send('POST', '/v1/bookings', booking(64)), /^body\.metadata\./);
  });

  it('counts arrays as levels, and names array indexes', async () => {
    const text = `{"departureId":"${departureId}","adults":1,"metadata":{"list":${'['.repeat(100)}${']'.repeat(100)}}}`;
    expectTooDeep(await send('POST', '/v1/bookings', text), /^body\.metadata\.list\.0\.0\[…\d+ levels…\]\.0\.0: /);
  });

  it('is not fooled by brackets inside strings', async () => {
    const text = `{"departureId":"${departureId}","adults":1,"metadata":{"note":"${'{['.repeat(200)}"}}`;
    expect((await send('POST', '/v1/bookings', text)).status).toBe(201);
  });
});

describe('a control-plane body nested too deep', () => {
  for (const levels of [5_000, 50_000]) {
    it(`refuses POST /__sandbox/events whose data nests ${levels.toLocaleString('en')} deep`, async () => {
      const text = `{"workspaceId":"${liveWs}","type":"customer.created","data":${nested(levels)}}`;
      expectTooDeep(await send('POST', '/__sandbox/events', text), /^body\.data\.a\.a\.a\[…/);
    });
  }

  it('refuses event data that an --add path would nest too deep', async () => {
    const path = Array.from({ length: 5_000 }, () => 'a').join('.');
    const res = await send(
      'POST',
      '/__sandbox/events',
      JSON.stringify({ workspaceId: liveWs, type: 'customer.created', data: { id: 'ppl_x' }, add: { [path]: 1 } }),
    );
    expectTooDeep(res, /^data\.a\.a\.a\.a\[…/);
  });

  it('refuses PUT /__sandbox/state with a row nested 5,000 deep, and keeps the state', async () => {
    const before = sandbox.store.list('forms', liveWs).length;
    const text = `{"schemaVersion":1,"collections":{"forms":{"${liveWs}":{"frm_x":{"id":"frm_x","deep":${nested(5_000)}}}}}}`;
    const res = await send('PUT', '/__sandbox/state', text);
    expect(res.status).toBe(400);
    expect(res.body.details![0]!.message).toMatch(/^body\.collections\.forms\.wksp_[\w-]+\.frm_x\[…\d+ levels…\]\.a\.a: nested deeper than 128 levels/);
    expect(sandbox.store.list('forms', liveWs).length).toBe(before);
    expect(sandbox.store.get('forms', liveWs, 'frm_x')).toBeUndefined();
  });

  it('is still serving after all of it', async () => {
    const res = await fetch(`http://127.0.0.1:${sandbox.port}/__sandbox/health`);
    expect(res.status).toBe(200);
  });
});
