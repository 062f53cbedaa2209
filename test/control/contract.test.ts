import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONTROL_ROUTES } from '../../src/control/contracts/index.ts';
import { responseSchemas, type ControlRoute } from '../../src/http/route-table/contract.ts';
import { CONTROL_PREFIX } from '../../src/core/paths.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * One control-plane contract. Every route the server
 * registers under /__sandbox comes from the route table the client uses, and
 * declares what it answers; the OpenAPI document shows that answer.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox();
  await t.sandbox.context.controlPlane.ready(); // built on first use: its routes join the catalog now
});
afterAll(() => t.sandbox.stop());

const key = (method: string, url: string) => `${method} ${url}`;
/** The control routes the server registered (HEAD is Fastify's own twin of each GET). */
const registered = () =>
  t.sandbox.context.routes.routes.filter((r) => (r.url === CONTROL_PREFIX || r.url.startsWith(`${CONTROL_PREFIX}/`)) && r.method !== 'HEAD');
const tableKeys = () =>
  Object.values(CONTROL_ROUTES as Record<string, ControlRoute>).map((r) => key(r.method, r.path === '/' ? CONTROL_PREFIX : `${CONTROL_PREFIX}${r.path}`));

describe('the control-plane contract', () => {
  it('every registered control route declares a success response schema', () => {
    const routes = registered();
    expect(routes.length).toBeGreaterThanOrEqual(50);
    const missing = routes.filter(
      (r) => !Object.keys((r.schema?.response as Record<string, unknown> | undefined) ?? {}).some((status) => status.startsWith('2')),
    );
    expect(missing.map((r) => key(r.method, r.url))).toEqual([]);
  });

  it('every registered control route is an entry of the route table, and every entry is registered', () => {
    const served = registered()
      .map((r) => key(r.method, r.url))
      .sort();
    const table = tableKeys().sort();
    expect(served).toEqual(table);
    expect(new Set(table).size).toBe(table.length);
  });

  it("the table names each route once (a group cannot shadow another group's name)", async () => {
    const groups = await Promise.all([
      import('../../src/control/contracts/health.ts').then((m) => m.HEALTH_ROUTES),
      import('../../src/control/contracts/plane.ts').then((m) => m.PLANE_ROUTES),
      import('../../src/control/contracts/workspaces.ts').then((m) => m.WORKSPACE_ROUTES),
      import('../../src/control/contracts/faults.ts').then((m) => m.FAULT_ROUTES),
      import('../../src/control/contracts/rate-limits.ts').then((m) => m.RATE_LIMIT_ROUTES),
      import('../../src/control/contracts/snapshots.ts').then((m) => m.SNAPSHOT_ROUTES),
      import('../../src/control/contracts/observe.ts').then((m) => m.OBSERVE_ROUTES),
      import('../../src/control/contracts/report.ts').then((m) => m.REPORT_ROUTES),
      import('../../src/control/contracts/parity.ts').then((m) => m.PARITY_ROUTES),
      import('../../src/control/contracts/seed.ts').then((m) => m.SEED_ROUTES),
      import('../../src/control/contracts/data.ts').then((m) => m.DATA_ROUTES),
      import('../../src/resources/departures/control-contract.ts').then((m) => m.DEPARTURE_CONTROL_ROUTES),
      import('../../src/resources/organizations/control-contract.ts').then((m) => m.ORG_KEY_CONTROL_ROUTES),
      import('../../src/resources/people/control-contract.ts').then((m) => m.PEOPLE_CONTROL_ROUTES),
      import('../../src/resources/verification/control-contract.ts').then((m) => m.VERIFICATION_CONTROL_ROUTES),
      import('../../src/resources/webhooks/control-contract.ts').then((m) => m.WEBHOOK_CONTROL_ROUTES),
    ]);
    const names = groups.flatMap((g) => Object.keys(g));
    expect(names.length).toBe(Object.keys(CONTROL_ROUTES).length);
  });

  it("the OpenAPI document shows each control operation's own answer, not a placeholder", () => {
    type Response = { $ref?: string; content?: Record<string, { schema: Record<string, unknown> }> };
    const doc = JSON.parse(t.sandbox.context.routes.document()) as {
      paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
      components: { responses: Record<string, Response> };
    };
    // an answer several operations give alike is one of components.responses
    const resolved = (r: Response) => (r.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')]! : r);
    const placeholders: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (!path.startsWith(CONTROL_PREFIX)) continue;
      for (const [method, op] of Object.entries(operations)) {
        const success = resolved(Object.entries(op.responses).find(([status]) => status.startsWith('2'))![1]);
        const schema = Object.values(success.content ?? {})[0]?.schema;
        if (!schema || (schema.type === 'object' && !schema.properties && !schema.additionalProperties)) placeholders.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(placeholders).toEqual([]);
    expect(Object.keys(doc.paths[`${CONTROL_PREFIX}/stream`]!.get!.responses['200']!.content!)).toEqual(['text/event-stream']);
  });

  it('wraps data in {data}, except the raw JSON and event-stream routes', () => {
    const health = responseSchemas(CONTROL_ROUTES.health)[200]!;
    expect(health.safeParse({ data: { status: 'ok', uptimeMs: 1, now: 'x' } }).success).toBe(true);
    expect(health.safeParse({ status: 'ok', uptimeMs: 1, now: 'x' }).success).toBe(false);
    const state = responseSchemas(CONTROL_ROUTES.exportState)[200]!;
    expect(state.safeParse({ schemaVersion: 1, seq: 0, collections: {} }).success).toBe(true);
    const created = responseSchemas(CONTROL_ROUTES.ensureSubscription);
    expect(
      Object.keys(created)
        .filter((s) => s.startsWith('2'))
        .sort(),
    ).toEqual(['200', '201']);
    expect(z.toJSONSchema(responseSchemas(CONTROL_ROUTES.stream)[200]!)).toMatchObject({ type: 'string' });
  });
});
