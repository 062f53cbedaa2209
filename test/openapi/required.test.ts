import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import type { CatalogRoute } from '../../src/core/route-catalog.ts';
import { openApiPath } from '../../src/http/openapi.ts';
import { KEYS } from '../helpers/sandbox.ts';

/**
 * The served OpenAPI document says `required` exactly
 * where the server enforces it, for every route of /v1 and /__sandbox, both
 * ways. What the server requires is read from two places:
 * - the route's zod schemas in the route catalog (params, querystring, headers,
 *   body): a field whose schema refuses `undefined`;
 * - its hand checks, found by asking: the route called with no query string
 *   and with an empty JSON body, and every field a 400 names as missing
 *   ("Missing required query parameter: from", "body.name: ... received undefined").
 * The document is read through its semantics (`$ref`s resolved), not its layout.
 */
type Where = 'path' | 'query' | 'header' | 'body';
type Required = Record<Where, Set<string>>;
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Schema {
  minProperties?: number;
  required?: string[];
  properties?: Record<string, unknown>;
  allOf?: Schema[];
  anyOf?: Schema[];
  oneOf?: Schema[];
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

let sandbox: Sandbox;
let doc: { paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  sandbox = await createSandbox({ listen: false, storage: 'memory', clock: 'manual', enforceRateLimits: false });
  await sandbox.context.controlPlane.ready(); // its routes join the catalog on first use
  const served = (await sandbox.app.inject({ url: '/__sandbox/openapi.json' })).json();
  doc = (await SwaggerParser.dereference(served)) as typeof doc;
}, 60_000);
afterAll(() => sandbox.stop());

const empty = (): Required => ({ path: new Set(), query: new Set(), header: new Set(), body: new Set() });
const intersect = (sets: Set<string>[]): Set<string> => new Set(sets.length ? [...sets[0]!].filter((k) => sets.every((s) => s.has(k))) : []);

/** Keys of an object schema that refuse undefined; a union requires what every branch requires. */
function zodRequired(schema: unknown): Set<string> {
  const s = schema as z.ZodType | undefined;
  if (!s) return new Set();
  if (s instanceof z.ZodObject) {
    return new Set(
      Object.entries(s.shape as Record<string, z.ZodType>)
        .filter(([, field]) => !field.safeParse(undefined).success)
        .map(([k]) => k),
    );
  }
  if (s instanceof z.ZodPipe) return zodRequired(s.in);
  if (s instanceof z.ZodUnion) return intersect((s.options as unknown[]).map(zodRequired));
  if (s instanceof z.ZodIntersection) return new Set([...zodRequired(s._zod.def.left), ...zodRequired(s._zod.def.right)]);
  return new Set();
}

/** `required` of a (dereferenced) JSON schema, through allOf / anyOf / oneOf. */
function schemaRequired(schema: Schema | undefined): Set<string> {
  if (!schema) return new Set();
  const own = new Set(schema.required ?? []);
  for (const part of schema.allOf ?? []) for (const k of schemaRequired(part)) own.add(k);
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) for (const k of intersect(branches.map(schemaRequired))) own.add(k);
  return own;
}

function documented(op: Operation): Required {
  const out = empty();
  for (const p of op.parameters ?? []) if (p.required) out[p.in as Where]?.add(p.name);
  const body = op.requestBody?.content?.['application/json']?.schema;
  out.body = schemaRequired(body);
  if ((body?.minProperties ?? 0) > 0) out.body.add(ANY_FIELD);
  return out;
}

/** Stands for "at least one field" (a refine on the server, `minProperties` in the document). */
const ANY_FIELD = '(at least one field)';

/** Every field a 400 names as missing: a hand check's message, or zod's "received undefined". */
function namedMissing(status: number, body: string, candidates: readonly string[]): Set<string> {
  const out = new Set<string>();
  if (status !== 400) return out;
  const { error = '', details = [] } = JSON.parse(body) as { error?: string; details?: { message?: string }[] };
  for (const line of [error, ...details.map((d) => d.message ?? '')]) {
    const zodMissing = /^(?:body|querystring|headers)\.(\w+): .*received undefined/.exec(line);
    if (zodMissing) out.add(zodMissing[1]!);
    else if (/at least one/i.test(line)) out.add(ANY_FIELD);
    else if (/missing|required/i.test(line)) for (const name of candidates) if (new RegExp(`\\b${name}\\b`).test(line)) out.add(name);
  }
  return out;
}

const fill = (url: string) => url.replace(/:(\w+)/g, (_m, name: string) => (name === 'name' ? 'snap' : `${name}_x`));

/** The route asked with nothing optional: no query string, an empty JSON body. */
async function enforced(route: CatalogRoute, op: Operation): Promise<Required> {
  const out = empty();
  const s = route.schema ?? {};
  out.path = zodRequired(s.params);
  for (const name of (route.url.match(/:(\w+)/g) ?? []).map((m) => m.slice(1))) out.path.add(name); // Fastify matches no route without it
  out.query = zodRequired(s.querystring);
  out.header = zodRequired(s.headers);
  out.body = zodRequired(s.body);
  const hasBody = Boolean(s.body);
  if (route.url.endsWith('/stream')) return out; // an event stream never ends: nothing to ask it
  const res = await sandbox.app.inject({
    method: route.method as 'GET',
    url: fill(route.url),
    headers: {
      ...(route.url.startsWith('/v1') ? { authorization: `Bearer ${KEYS.liveFull}` } : {}),
      ...(hasBody || route.method === 'POST' ? { 'content-type': 'application/json' } : {}),
    },
    ...(hasBody || route.method === 'POST' ? { payload: '{}' } : {}),
  });
  const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
  const fields = Object.keys((op.requestBody?.content?.['application/json']?.schema?.properties as object | undefined) ?? {});
  for (const name of namedMissing(res.statusCode, res.body, query)) if (query.includes(name)) out.query.add(name);
  for (const name of namedMissing(res.statusCode, res.body, fields)) if (fields.includes(name) || name === ANY_FIELD) out.body.add(name);
  return out;
}

describe("the OpenAPI document's `required`", () => {
  it('is what the server enforces, for every parameter, header and body field of every route', async () => {
    const routes = sandbox.context.routes.routes.filter(
      (r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && (r.url.startsWith('/v1') || r.url.startsWith('/__sandbox/')),
    );
    expect(routes.length).toBeGreaterThan(80);
    const mismatches: string[] = [];
    for (const route of routes) {
      const op = doc.paths[openApiPath(route.url)]?.[route.method.toLowerCase()];
      if (!op) {
        mismatches.push(`${route.method} ${route.url}: not in the document`);
        continue;
      }
      const [said, server] = [documented(op), await enforced(route, op)];
      for (const where of ['path', 'query', 'header', 'body'] as const) {
        for (const name of server[where])
          if (!said[where].has(name)) mismatches.push(`${route.method} ${route.url}: ${where} ${name} is required by the server, optional in the document`);
        for (const name of said[where])
          if (!server[where].has(name)) mismatches.push(`${route.method} ${route.url}: ${where} ${name} is required in the document, optional for the server`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 60_000);
});
