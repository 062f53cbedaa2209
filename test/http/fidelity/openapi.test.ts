import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';

/** The OpenAPI document marks every inferred part and lists every route. */
let t: TestSandbox;
let doc: {
  paths: Record<string, Record<string, Record<string, unknown> & { responses: Record<string, Record<string, unknown>> }>>;
  components: { responses: Record<string, Record<string, unknown>> };
};
beforeAll(async () => {
  t = await testSandbox();
  doc = (await t.request('GET', '/__sandbox/openapi.json', { key: null })).json();
});
afterAll(() => t.sandbox.stop());

const op = (path: string, method: string) => {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is missing from the OpenAPI document`);
  return found;
};
/** A response, or the shared one of components.responses it refers to. */
const resolved = (o: Record<string, unknown> | undefined) =>
  typeof o?.$ref === 'string' ? doc.components.responses[o.$ref.replace('#/components/responses/', '')] : o;
const inferred = (o: Record<string, unknown> | undefined) => resolved(o)?.['x-sandbox-inferred'] === true;

describe('inferred status codes and responses are marked', () => {
  it.each([
    ['/v1/forms', 'post', '201'],
    ['/v1/people/{id}', 'get', '200'],
    ['/v1/policies/{id}', 'delete', '200'],
    ['/v1/organizations/{id}/api-keys', 'post', '201'],
    ['/v1/verify/sms/start', 'post', '200'],
    ['/v1/bookings/{id}', 'patch', '409'],
  ])('%s %s answers %s: marked x-sandbox-inferred', (path, method, status) => {
    expect(inferred(op(path, method).responses[status])).toBe(true);
  });

  it.each([
    ['/v1/gallery/folders', 'post', '201'],
    ['/v1/gallery/folders', 'post', '409'],
    ['/v1/gallery/files/{id}', 'delete', '202'],
    ['/v1/webhooks/subscriptions/{id}', 'patch', '200'],
    ['/v1/webhooks/subscriptions/{id}', 'patch', '400'],
    ['/v1/bookings/{id}', 'patch', '200'],
    ['/v1/bookings', 'get', '200'],
    ['/v1/analytics/comms/delivery-events', 'get', '200'],
  ])('%s %s answers %s as documented: not marked', (path, method, status) => {
    expect(op(path, method).responses[status]).toBeDefined();
    expect(inferred(op(path, method).responses[status])).toBe(false);
  });
});

describe('inferred scopes are marked', () => {
  it('a scope the description does not state carries x-sandbox-inferred-scope; the stated ones do not', () => {
    expect(op('/v1/forms', 'post')).toMatchObject({ 'x-required-scope': 'forms:write', 'x-sandbox-inferred-scope': true });
    expect(op('/v1/people/{id}', 'get')['x-sandbox-inferred-scope']).toBe(true);
    for (const [path, method] of [
      ['/v1/analytics/comms/delivery-events', 'get'],
      ['/v1/webhooks/subscriptions', 'get'],
      ['/v1/webhooks/subscriptions/{id}', 'get'],
      ['/v1/webhooks/subscriptions/{id}', 'patch'],
    ] as const) {
      expect(op(path, method)['x-required-scope'], `${method} ${path}`).toBeDefined();
      expect(op(path, method)['x-sandbox-inferred-scope'], `${method} ${path}`).toBeUndefined();
    }
  });
});

/** Every route the app serves, from Fastify's own route tree (depth is 4 characters of indentation per level). */
function servedRoutes(tree: string): { method: string; path: string }[] {
  const prefixes: string[] = [];
  const out: { method: string; path: string }[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)/.exec(line) ?? /^([│ ]*)[├└]── (\S+)$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + m[2]!;
    prefixes[depth] = path;
    for (const method of (m[3] ?? '').split(', ').filter(Boolean)) out.push({ method, path });
  }
  return out;
}

describe('every route is listed', () => {
  it('each route the app serves, /v1 and /__sandbox, is in the document; control routes are marked x-sandbox-only', async () => {
    // the listening app hands /__sandbox/* to the control plane's own app (src/http/control-forward.ts)
    const api = servedRoutes(t.sandbox.app.printRoutes({ commonPrefix: false })).filter((r) => !r.path.startsWith('/__sandbox'));
    // the inspector's static files (src/control/inspector.ts) are a page, not an API
    const control = servedRoutes((await t.sandbox.context.controlPlane.app()).printRoutes({ commonPrefix: false })).filter(
      (r) => !/^\/__sandbox\/ui(\/|\*|$)/.test(r.path),
    );
    expect(control.length).toBeGreaterThan(50);
    const served = [...api, ...control].filter((r) => r.method !== 'HEAD');
    expect(served.length).toBeGreaterThan(60);
    for (const { method, path } of served) {
      const o = op(path.replace(/:([A-Za-z_]+)/g, '{$1}'), method.toLowerCase());
      if (path.startsWith('/__sandbox')) expect(o['x-sandbox-only'], `${method} ${path}`).toBe(true);
    }
    expect(op('/__sandbox/rate-limits', 'get')).toBeDefined();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const o of Object.values(methods)) {
        const declared = (o.parameters as { name: string; in: string }[])
          .filter((p) => p.in === 'path')
          .map((p) => p.name)
          .sort();
        expect(declared, path).toEqual([...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort());
      }
    }
    expect(Object.keys(op('/__sandbox/stream', 'get').responses['200']!.content as object)).toEqual(['text/event-stream']);
  });
});
