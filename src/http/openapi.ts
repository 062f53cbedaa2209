import { z } from 'zod';
import { ERROR_CODE_NAMES, ERROR_CODES } from '../core/error-codes.ts';
import { deriveOperationId, REASONS, tagOf } from './openapi-names.ts';

/**
 * The OpenAPI document, generated from the zod schemas every route declares.
 * It is built on first request, not at start-up, so `sandbox start` pays
 * nothing for it. Operations and schemas the API description leaves "not
 * shown" carry `x-sandbox-inferred: true`.
 */
export interface CatalogRoute {
  method: string;
  url: string;
  schema: Record<string, unknown> | undefined;
  inferred: boolean | undefined;
  /** statuses the API description states for this operation; the others are marked inferred */
  documentedStatuses?: readonly number[] | undefined;
  /** the description states this route's scope; otherwise x-sandbox-inferred-scope */
  documentedScope?: boolean | undefined;
  scope: string | undefined;
  summary: string | undefined;
  operationId?: string | undefined;
}

export class RouteCatalog {
  readonly routes: CatalogRoute[] = [];
  private cached: string | null = null;

  add(route: CatalogRoute): void {
    this.routes.push(route);
    this.cached = null;
  }

  document(): string {
    this.cached ??= JSON.stringify(buildDocument(this.routes));
    return this.cached;
  }
}

/** `/v1/products/:id` -> `/v1/products/{id}` */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z_]+)/g, '{$1}');

/** The operationId the OpenAPI document gives a route (also the run report's key, issue 24). */
export const operationIdOf = (route: Pick<CatalogRoute, 'method' | 'url' | 'operationId'>): string => route.operationId ?? deriveOperationId(route.method, openApiPath(route.url));

const toJson = (schema: unknown, io: 'input' | 'output') =>
  z.toJSONSchema(schema as z.ZodType, { io, target: 'openapi-3.0', unrepresentable: 'any' }) as Record<string, unknown>;

function parameters(schema: unknown, where: 'path' | 'query') {
  if (!schema) return [];
  const json = toJson(schema, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, prop]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    description: prop.description,
    schema: prop,
  }));
}

/** The error-code catalogue (docs/api-notes.md, "Error codes"), with each code's status and meaning. */
const ERROR_CODE = {
  type: 'string',
  enum: ERROR_CODE_NAMES,
  description: 'stable error code; absent on the documented 401, 403, 404, 429 and analytics 400 bodies',
  'x-sandbox-inferred': true,
  'x-error-codes': Object.fromEntries(Object.entries(ERROR_CODES).map(([code, [status, meaning]]) => [code, { status, meaning }])),
};
const ERROR_BODY = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string' }, code: ERROR_CODE, details: { type: 'array', items: { type: 'object', properties: { message: { type: 'string' } } } } },
};
const RATE_LIMITED_BODY = { type: 'object', required: ['error', 'retry_after'], properties: { error: { type: 'string' }, retry_after: { type: 'integer' } } };
const STANDARD_HEADERS = {
  'X-Request-ID': { $ref: '#/components/headers/X-Request-ID' },
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Retries with the same key and body replay the first answer for 24 h (docs/api-notes.md)',
  schema: { type: 'string', maxLength: 255 },
};

function response(status: string, schema: unknown, mediaType = 'application/json'): Record<string, unknown> {
  const description = REASONS[status] ?? `HTTP ${status}`;
  if (status === '204') return { description, headers: STANDARD_HEADERS };
  return { description, headers: STANDARD_HEADERS, content: { [mediaType]: { schema } } };
}

/**
 * Answers the request pipeline gives on any route, whatever the route declares
 * (docs/api-notes.md): malformed input, a missing key or token, a Host or
 * Origin refused, a missing scope, an unknown id, a body too large or not JSON, an Idempotency-Key in
 * flight or reused with another body, and the rate limit.
 */
function pipelineResponses(route: CatalogRoute, path: string, hasBody: boolean): Record<string, unknown> {
  const api = path.startsWith('/v1');
  const out: Record<string, unknown> = { '400': response('400', ERROR_BODY), '401': response('401', ERROR_BODY), '414': response('414', ERROR_BODY) };
  // 403 everywhere: a Host a loopback sandbox does not answer, a cross-origin control request
  // (src/core/host-guard.ts), or on /v1 a missing scope
  out['403'] = response('403', ERROR_BODY);
  if (path.includes('{')) out['404'] = response('404', ERROR_BODY);
  if (hasBody) Object.assign(out, { '413': response('413', ERROR_BODY), '415': response('415', ERROR_BODY) });
  else if (!api && route.method === 'POST') out['415'] = response('415', ERROR_BODY); // a control POST must say JSON
  if (route.method !== 'GET') out['409'] = response('409', ERROR_BODY); // a state conflict, or an Idempotency-Key in flight
  if (api && route.method === 'POST') out['422'] = response('422', ERROR_BODY); // an Idempotency-Key reused with another body
  if (api) out['429'] = response('429', RATE_LIMITED_BODY);
  return out;
}

/**
 * Error statuses of the description's general "Errors" table; any other
 * status (409, 413-415, 422, 500, ...) is the sandbox's unless the route names
 * it in `documentedStatuses`.
 */
const DOCUMENTED_ERRORS = new Set(['400', '401', '403', '404', '429']);

/** A /v1 answer the description does not state for this operation is marked x-sandbox-inferred. */
function markInferred(route: CatalogRoute, responses: Record<string, unknown>): void {
  for (const [status, value] of Object.entries(responses)) {
    const documented = route.documentedStatuses?.includes(Number(status)) || (Number(status) >= 400 && DOCUMENTED_ERRORS.has(status));
    if (route.inferred || !documented) responses[status] = { ...(value as object), 'x-sandbox-inferred': true };
  }
}

/** Path parameters named in the URL but not in a params schema are plain strings. */
function pathParameters(path: string, declared: ReturnType<typeof parameters>) {
  const names = new Set(declared.map((p) => p.name));
  const extra = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((name) => !names.has(name));
  return [...declared, ...extra.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } }))];
}

function operation(route: CatalogRoute, path: string) {
  const s = route.schema ?? {};
  const api = path.startsWith('/v1');
  const responses: Record<string, unknown> = {};
  // the control plane's event stream is the one answer that is not JSON
  const mediaType = !api && path.endsWith('/stream') ? 'text/event-stream' : 'application/json';
  for (const [status, schema] of Object.entries((s.response as Record<string, unknown>) ?? {})) {
    responses[status] = response(status, toJson(schema, 'output'), status.startsWith('2') ? mediaType : undefined);
  }
  // every route declares its answer (a test holds the control plane to it); this is a last resort
  if (!Object.keys(responses).some((status) => status.startsWith('2'))) responses['200'] = response('200', { type: 'object' });
  for (const [status, value] of Object.entries(pipelineResponses(route, path, Boolean(s.body)))) responses[status] ??= value;
  if (api) markInferred(route, responses);
  return {
    operationId: operationIdOf(route),
    summary: route.summary ?? `${route.method} ${path}`,
    tags: [tagOf(path)],
    ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    ...(route.scope && !route.documentedScope ? { 'x-sandbox-inferred-scope': true } : {}),
    ...(route.inferred ? { 'x-sandbox-inferred': true } : {}),
    ...(api ? {} : { 'x-sandbox-only': true }),
    parameters: [
      ...pathParameters(path, parameters(s.params, 'path')),
      ...parameters(s.querystring, 'query'),
      ...(api && route.method === 'POST' ? [IDEMPOTENCY_KEY] : []),
    ],
    ...(s.body ? { requestBody: { required: true, content: { 'application/json': { schema: toJson(s.body, 'input') } } } } : {}),
    responses,
    security: api ? [{ bearerAuth: [] }] : [{}, { sandboxToken: [] }],
  };
}

function buildDocument(routes: readonly CatalogRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Set<string>();
  for (const route of routes) {
    if (route.method === 'HEAD' || route.method === 'OPTIONS') continue;
    const path = openApiPath(route.url);
    if (path === '/__sandbox' && route.method !== 'GET') continue;
    const op = operation(route, path);
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
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'A workspace or organization API key' },
        sandboxToken: { type: 'apiKey', in: 'header', name: 'X-Sandbox-Token', description: 'The control-plane token; needed only when the sandbox is bound to a non-loopback host' },
      },
      headers: {
        'X-Request-ID': { description: 'The request id, echoed when the caller sent a sane one', schema: { type: 'string' } },
        'X-RateLimit-Limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
        'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
        'X-RateLimit-Reset': { description: 'Unix time (seconds) when the window resets', schema: { type: 'integer' } },
      },
    },
    paths,
  };
}
