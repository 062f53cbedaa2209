/**
 * The fuzz suite: requests generated with fast-check from
 * the sandbox's own OpenAPI document, for every /v1 and /__sandbox operation.
 * Properties: never a 5xx; every error is JSON {error: string} with the
 * standard headers; the server stays healthy; nothing in another workspace
 * changes through one workspace's key.
 *
 * Deterministic by default (seed below). Explore with FUZZ_SEED=<n> and
 * FUZZ_RUNS=<n> (CI runs 40 per operation, a local run 20: test/setup/depth.ts); a failure prints the seed and the command that replays it.
 */
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { bodyText, operationsOf, pathSegment, queryString, type Operation } from './arbitraries.ts';
import { depth } from '../setup/depth.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20260115);
const RUNS = depth('FUZZ_RUNS', 40, 20);

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

const figures = { cases: 0, serverErrors: 0, byStatus: new Map<number, number>() };

function idsOf(exported: Record<string, unknown>): string[] {
  const ids = new Set<string>();
  const walk = (value: unknown, depth: number) => {
    if (depth > 3 || value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) return value.slice(0, 5).forEach((v) => walk(v, depth + 1));
    const id = (value as { id?: unknown }).id;
    if (typeof id === 'string') ids.add(id);
    for (const v of Object.values(value)) walk(v, depth + 1);
  };
  walk(exported, 0);
  return [...ids];
}

function requestFor(op: Operation, ids: fc.Arbitrary<string>, auth: fc.Arbitrary<Record<string, string>>): fc.Arbitrary<FuzzRequest> {
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const segments = fc.tuple(...names.map(() => pathSegment(ids)));
  const body = op.body ? fc.option(bodyText(op.body, ids), { nil: undefined, freq: 10 }) : fc.constant(undefined);
  const contentType = fc.oneof(
    { arbitrary: fc.constant('application/json'), weight: 8 },
    { arbitrary: fc.constantFrom('text/plain', 'application/json; charset=latin1', 'multipart/form-data; boundary=x', ''), weight: 1 },
  );
  const extra = fc.dictionary(
    fc.constantFrom('idempotency-key', 'x-request-id', 'x-workspace-id', 'accept-language', 'x-forwarded-for'),
    fc.string({ maxLength: 300 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
    { maxKeys: 2 },
  );
  return fc
    .record({ segments, query: queryString(op, ids), body, contentType, auth, extra })
    .map(({ segments: seg, query, body: payload, contentType: type, auth: a, extra: x }) => {
      let path = op.path;
      names.forEach((name, i) => (path = path.replace(`{${name}}`, seg[i]!)));
      const headers: Record<string, string> = { ...x, ...a };
      if (payload !== undefined && type) headers['content-type'] = type;
      return { method: op.method, url: query ? `${path}?${query}` : path, headers, ...(payload !== undefined ? { payload } : {}) };
    });
}

function checkResponse(req: FuzzRequest, res: LightMyRequestResponse): void {
  figures.cases++;
  figures.byStatus.set(res.statusCode, (figures.byStatus.get(res.statusCode) ?? 0) + 1);
  if (res.statusCode >= 500) figures.serverErrors++;
  const what = `${req.method} ${req.url.slice(0, 300)} ${JSON.stringify(req.headers).slice(0, 300)} ${(req.payload ?? '').slice(0, 300)}`;
  expect(res.statusCode, `${what} -> ${res.body.slice(0, 500)}`).toBeLessThan(500);
  expect(res.headers['x-request-id'], what).toBeTruthy();
  if (req.url.startsWith('/v1/')) {
    expect(res.headers['x-ratelimit-limit'], what).toMatch(/^\d+$/);
    expect(res.headers['x-ratelimit-remaining'], what).toMatch(/^\d+$/);
  }
  if (res.statusCode >= 400) {
    expect(res.headers['content-type'], what).toMatch(/^application\/json/);
    const body = JSON.parse(res.body) as { error?: unknown };
    expect(typeof body.error, `${what} -> ${res.body.slice(0, 300)}`).toBe('string');
  }
  expect(({} as Record<string, unknown>).polluted, 'Object.prototype polluted').toBeUndefined();
}

async function assertProperty(name: string, arbitrary: fc.Arbitrary<FuzzRequest>, run: (req: FuzzRequest) => Promise<void>, numRuns = RUNS): Promise<void> {
  const result = await fc.check(fc.asyncProperty(arbitrary, run), { seed: SEED, numRuns, endOnFailure: true });
  if (result.failed) {
    const cause = (result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)).slice(0, 3000);
    throw new Error(
      `fuzz ${name} failed (seed ${result.seed}, path ${result.counterexamplePath}); replay: FUZZ_SEED=${result.seed} npx vitest run test/fuzz\n${cause}\ncounterexample: ${fc.stringify(result.counterexample).slice(0, 2000)}`,
    );
  }
}

const send = (t: TestSandbox, req: FuzzRequest) =>
  t.sandbox.app.inject({ method: req.method as 'GET', url: req.url, headers: req.headers, ...(req.payload !== undefined ? { payload: req.payload } : {}) });

async function healthy(t: TestSandbox): Promise<void> {
  expect((await t.request('GET', '/__sandbox/health', { key: null })).statusCode).toBe(200);
}

describe("fuzz: /v1 through one workspace's keys", () => {
  let t: TestSandbox;
  let operations: Operation[];
  let ids: fc.Arbitrary<string>;
  let otherBefore: Map<string, string>;
  /** every row of the other (sandbox) workspace, as JSON by collection/id */
  const otherWorkspace = () => {
    const rows = new Map<string, string>();
    for (const [collection, parts] of Object.entries(t.sandbox.store.exportCollections())) {
      for (const [id, row] of Object.entries(parts[t.sandboxWorkspaceId] ?? {})) rows.set(`${collection}/${id}`, JSON.stringify(row));
    }
    return rows;
  };
  const changedSince = (before: Map<string, string>) => {
    const after = otherWorkspace();
    const keys = new Set([...before.keys(), ...after.keys()]);
    return [...keys]
      .filter((k) => before.get(k) !== after.get(k))
      .map((k) => `${k}: ${(before.get(k) ?? 'absent').slice(0, 300)} -> ${(after.get(k) ?? 'absent').slice(0, 300)}`);
  };

  beforeAll(async () => {
    t = await testSandbox({ enforceRateLimits: false, webhookTimeoutMs: 1000 });
    const doc = (await t.request('GET', '/__sandbox/openapi.json', { key: null })).json();
    operations = operationsOf(doc).filter((op) => op.path.startsWith('/v1/'));
    const live = (await t.request('GET', `/__sandbox/workspaces/${t.liveWorkspaceId}/export`, { key: null })).json().data;
    const sbx = (await t.request('GET', `/__sandbox/workspaces/${t.sandboxWorkspaceId}/export`, { key: null })).json().data;
    ids = fc.constantFrom(...idsOf(live), ...idsOf(sbx), t.liveWorkspaceId, t.sandboxWorkspaceId);
    otherBefore = otherWorkspace();
  });
  afterAll(() => t.sandbox.stop());

  it('covers every /v1 operation of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(30);
  });

  it('never a 5xx, errors are {error} with the standard headers, the server stays healthy, the other workspace is untouched', async () => {
    // the live workspace's keys (full and read-only) or junk; never the sandbox workspace's
    const auth: fc.Arbitrary<Record<string, string>> = fc.oneof(
      { arbitrary: fc.constant<Record<string, string>>({ authorization: `Bearer ${KEYS.liveFull}` }), weight: 8 },
      { arbitrary: fc.constant<Record<string, string>>({ authorization: `Bearer ${KEYS.liveRead}` }), weight: 1 },
      {
        arbitrary: fc.constantFrom<Record<string, string>>(
          {},
          { authorization: 'Bearer' },
          { authorization: `Bearer ${'x'.repeat(5000)}` },
          { authorization: 'Basic Zm9vOmJhcg==' },
        ),
        weight: 1,
      },
    );
    for (const op of operations) {
      await assertProperty(`${op.method} ${op.path}`, requestFor(op, ids, auth), async (req) => checkResponse(req, await send(t, req)));
      await healthy(t);
      expect(changedSince(otherBefore), `after ${op.method} ${op.path}: the sandbox workspace changed through the live workspace's keys`).toEqual([]);
    }
    await t.sandbox.clock.advance(3_600_000); // let background work (gallery removal, webhooks) run
    await healthy(t);
    expect((await t.request('GET', '/v1/products?limit=1')).statusCode).toBe(200);
    expect(changedSince(otherBefore), 'the sandbox workspace changed after background work').toEqual([]);
  }, 120_000);
});

describe('fuzz: /__sandbox control plane', () => {
  let t: TestSandbox;
  let operations: Operation[];
  let ids: fc.Arbitrary<string>;

  beforeAll(async () => {
    t = await testSandbox({ enforceRateLimits: false, webhookTimeoutMs: 1000 });
    const doc = (await t.request('GET', '/__sandbox/openapi.json', { key: null })).json();
    // GET /__sandbox/stream is Server-Sent Events: it never ends, so inject() would wait forever
    operations = operationsOf(doc).filter((op) => op.path.startsWith('/__sandbox/') && op.path !== '/__sandbox/stream');
    const live = (await t.request('GET', `/__sandbox/workspaces/${t.liveWorkspaceId}/export`, { key: null })).json().data;
    ids = fc.constantFrom(...idsOf(live).slice(0, 200), t.liveWorkspaceId, t.sandboxWorkspaceId, 'snap1');
  });
  afterAll(async () => {
    await t.sandbox.stop();
    const top = [...figures.byStatus]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s}:${n}`)
      .join(' ');
    console.log(`fuzz figures: ${figures.cases} cases, ${figures.serverErrors} 5xx (seed ${SEED}, ${RUNS} runs per operation; statuses ${top})`);
  });

  it('covers every /__sandbox operation of the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThanOrEqual(25);
  });

  it('never a 5xx, errors are {error} with the standard headers, the server stays healthy', async () => {
    const auth = fc.constant({});
    for (const op of operations) {
      await assertProperty(
        `${op.method} ${op.path}`,
        requestFor(op, ids, auth),
        async (req) => {
          checkResponse(req, await send(t, req));
          // injected faults answer 5xx on purpose: never leave one behind for the next request
          await t.request('DELETE', '/__sandbox/faults', { key: null });
          // fewer runs here: an advance of years runs every hourly job on the way, and snapshots copy the state
        },
        Math.ceil(op.path.startsWith('/__sandbox/clock/') ? RUNS / 4 : (RUNS * 3) / 5),
      );

      await healthy(t);
    }
  }, 120_000);
});
