import { z } from 'zod';
import type { CatalogRoute } from '../core/route-catalog.ts';
import { ErrorBodySchema, RateLimitErrorBodySchema } from './error-schemas.ts';
import { OpenApiSchemas } from './openapi-schemas.ts';
import { acceptsEmptyObject } from './empty-body.ts';
import { deriveOperationId, tagOf } from './openapi-names.ts';
import { memoizedDocument } from './openapi-memo.ts';
import { type Body, HEADER_COMPONENTS, Responses } from './openapi-responses.ts';

/**
 * The OpenAPI document, generated from the zod schemas every route declares.
 * It is built on first request, not at start-up, so `sandbox start` pays
 * nothing for it. Operations and schemas the API description leaves "not
 * shown" carry `x-sandbox-inferred: true`. As JSON text; the sandbox's RouteCatalog
 * (src/core/route-catalog.ts) calls it and keeps the text; the same routes in another sandbox of
 * the process get the same text without a second build (openapi-memo.ts).
 */
export const openApiDocument = (routes: readonly CatalogRoute[]): string => memoizedDocument(routes, (all) => JSON.stringify(buildDocument(all)));

/** `/v1/products/:id` -> `/v1/products/{id}` */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z_]+)/g, '{$1}');

/** The operationId the OpenAPI document gives a route (also the run report's key, docs/cli.md "The run report"). */
export const operationIdOf = (route: Pick<CatalogRoute, 'method' | 'url' | 'operationId'>): string =>
  route.operationId ?? deriveOperationId(route.method, openApiPath(route.url));

const pascalCase = (id: string) => id[0]!.toUpperCase() + id.slice(1);

function parameters(schemas: OpenApiSchemas, schema: unknown, where: 'path' | 'query') {
  if (!schema) return [];
  const json = schemas.body(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, prop]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    description: prop.description,
    schema: prop,
  }));
}

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Retries with the same key and body replay the first answer for 24 h (docs/api-notes.md)',
  schema: { type: 'string', maxLength: 255 },
};

/**
 * Answers the request pipeline gives on any route, whatever the route declares
 * (docs/api-notes.md): malformed input, a missing key or token, a Host or
 * Origin refused, a missing scope, an unknown id, a body too large or not JSON, an Idempotency-Key in
 * flight or reused with another body, and the rate limit.
 */
function pipelineResponses(route: CatalogRoute, path: string, hasBody: boolean): Record<string, Body> {
  const api = path.startsWith('/v1');
  const error = { schema: ErrorBodySchema, mediaType: 'application/json' };
  const out: Record<string, Body> = { '400': error, '401': error, '414': error };
  // 403 everywhere: a Host a loopback sandbox does not answer, a cross-origin control request
  // (src/core/host-guard.ts), or on /v1 a missing scope
  out['403'] = error;
  if (path.includes('{')) out['404'] = error;
  if (hasBody) Object.assign(out, { '413': error, '415': error });
  else if (!api && route.method === 'POST') out['415'] = error; // a control POST must say JSON
  if (route.method !== 'GET') out['409'] = error; // a state conflict, or an Idempotency-Key in flight
  if (api && route.method === 'POST') out['422'] = error; // an Idempotency-Key reused with another body
  if (api) out['429'] = { schema: RateLimitErrorBodySchema, mediaType: 'application/json' };
  return out;
}

/**
 * Error statuses of the description's general "Errors" table; any other
 * status (409, 413-415, 422, 500, ...) is the sandbox's unless the route names
 * it in `documentedStatuses`.
 */
const DOCUMENTED_ERRORS = new Set(['400', '401', '403', '404', '429']);

/** A /v1 answer the description does not state for this operation is marked x-sandbox-inferred. */
function isInferred(route: CatalogRoute, status: string): boolean {
  const documented = route.documentedStatuses?.includes(Number(status)) || (Number(status) >= 400 && DOCUMENTED_ERRORS.has(status));
  return Boolean(route.inferred) || !documented;
}
/** Whether this answer of this route carries x-sandbox-inferred: /v1 only. */
const marked = (route: CatalogRoute, path: string, status: string) => path.startsWith('/v1') && isInferred(route, status);

/** Path parameters named in the URL but not in a params schema are plain strings. */
function pathParameters(path: string, declared: ReturnType<typeof parameters>) {
  const names = new Set(declared.map((p) => p.name));
  const extra = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((name) => !names.has(name));
  return [...declared, ...extra.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))];
}

/** Every answer of a route, declared or the pipeline's: status -> body (null: 204). */
function bodiesOf(route: CatalogRoute, path: string): Record<string, Body> {
  const s = route.schema ?? {};
  const api = path.startsWith('/v1');
  const out: Record<string, Body> = {};
  // the control plane's event stream and its failure bundle are the answers that are not JSON
  const mediaType = api
    ? 'application/json'
    : path.endsWith('/stream')
      ? 'text/event-stream'
      : path.endsWith('/bundle')
        ? 'application/gzip'
        : 'application/json';
  for (const [status, schema] of Object.entries((s.response as Record<string, unknown>) ?? {})) {
    out[status] = status === '204' ? null : { schema, mediaType: status.startsWith('2') ? mediaType : 'application/json' };
  }
  // every route declares its answer (a test holds the control plane to it); this is a last resort
  if (!Object.keys(out).some((status) => status.startsWith('2'))) out['200'] = { schema: z.object({}).passthrough(), mediaType };
  for (const [status, body] of Object.entries(pipelineResponses(route, path, Boolean(s.body)))) out[status] ??= body;
  return out;
}

function operation(route: CatalogRoute, path: string, bodies: Record<string, Body>, schemas: OpenApiSchemas, responses: Responses) {
  const s = route.schema ?? {};
  const api = path.startsWith('/v1');
  return {
    operationId: operationIdOf(route),
    summary: route.summary ?? `${route.method} ${path}`,
    tags: [tagOf(path)],
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    ...(route.scope && !route.documentedScope ? { 'x-sandbox-inferred-scope': true } : {}),
    ...(route.inferred ? { 'x-sandbox-inferred': true } : {}),
    ...(api ? {} : { 'x-sandbox-only': true }),
    parameters: [
      ...pathParameters(path, parameters(schemas, s.params, 'path')),
      ...parameters(schemas, s.querystring, 'query'),
      ...(api && route.method === 'POST' ? [IDEMPOTENCY_KEY] : []),
    ],
    // a body whose every field is optional or has a default may be left out (./empty-body.ts)
    ...(s.body ? { requestBody: { required: !acceptsEmptyObject(s.body), content: { 'application/json': { schema: schemas.json(s.body, 'input') } } } } : {}),
    responses: Object.fromEntries(Object.entries(bodies).map(([status, body]) => [status, responses.of(status, body, marked(route, path, status))])),
    security: api ? [{ bearerAuth: [] }] : [{}, { sandboxToken: [] }],
  };
}

function buildDocument(routes: readonly CatalogRoute[]) {
  const included = routes
    .filter((route) => route.method !== 'HEAD' && route.method !== 'OPTIONS')
    .map((route) => ({ route, path: openApiPath(route.url) }))
    .filter(({ route, path }) => path !== '/__sandbox' || route.method === 'GET')
    .map((entry) => ({ ...entry, bodies: bodiesOf(entry.route, entry.path) }));
  // every schema of every route converted in one pass, so that the named ones are written once
  const schemas = new OpenApiSchemas();
  const responses = new Responses(schemas);
  for (const { route, path, bodies } of included) {
    const s = route.schema ?? {};
    const name = pascalCase(operationIdOf(route));
    for (const [part, input] of Object.entries({ Params: s.params, Query: s.querystring, Body: s.body }))
      if (input) schemas.add(input, 'input', `${name}${part}`);
    // an answer several operations give alike is one response object, its body converted once
    for (const [status, body] of Object.entries(bodies))
      if (responses.add(status, body, marked(route, path, status), name) && body) schemas.add(body.schema, 'output', `${name}${status}`);
  }
  schemas.convert();
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const { route, path, bodies } of included) {
    const op = operation(route, path, bodies, schemas, responses);
    tags.add(op.tags[0]!);
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Travel Commerce Service API (travel-commerce-sandbox)',
      version: 'v1',
      description:
        'Generated by travel-commerce-sandbox from the zod schemas of its routes. Operations, responses and schemas marked x-sandbox-inferred: true are designed by the sandbox where the API description says "not shown"; x-sandbox-inferred-scope: true marks a required scope the description does not state; x-sandbox-only: true marks the control plane; see docs/api-notes.md. Paths under /__sandbox are the sandbox\'s control plane, not part of the production API.',
      license: { name: 'MIT', url: 'https://opensource.org/licenses/MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:4010', description: 'sandbox start (the default port)' }],
    tags: [...tags].sort().map((name) => ({
      name,
      description: name.startsWith('sandbox ') ? `Control plane: ${name.slice(8)} (sandbox only)` : `API area: ${name}`,
    })),
    components: {
      schemas: schemas.components([paths, responses.components]),
      responses: Object.fromEntries(Object.entries(responses.components).sort(([a], [b]) => a.localeCompare(b))),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A workspace or organization API key' },
        sandboxToken: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Sandbox-Token',
          description: 'The control-plane token; needed only when the sandbox is bound to a non-loopback host',
        },
      },
      headers: HEADER_COMPONENTS,
    },
    paths,
  };
}
