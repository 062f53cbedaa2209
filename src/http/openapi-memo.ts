/**
 * The OpenAPI document of a set of routes, built once per process for the same routes.
 * Every sandbox of a process registers the same routes with the same zod schemas (the areas'
 * modules define them once), so a second sandbox's document is the first one's text: building it
 * converts every schema to JSON Schema (about 25 ms), which a test suite creating hundreds of
 * sandboxes paid each time. Routes are the same when their fields are equal and their schemas
 * are the very same objects; a route with another schema object (another area list, a test's
 * toy area) is another key, so the memo can never hand out a document of other routes.
 */
import type { CatalogRoute } from '../core/route-catalog.ts';

/** documents kept: a process has one route set, tests a few (toy areas, a proxy) */
const KEPT = 8;

const schemaIds = new WeakMap<object, number>();
let nextId = 1;

/** the identity of a schema object as a number: equal only for the very same object */
function idOf(value: unknown): string {
  if (value === undefined || value === null) return '-';
  if (typeof value !== 'object' && typeof value !== 'function') return JSON.stringify(value);
  let id = schemaIds.get(value as object);
  if (id === undefined) schemaIds.set(value as object, (id = nextId++));
  return `#${id}`;
}

/** a route's schema parts (params, querystring, body, each response) by identity */
function schemaKey(schema: CatalogRoute['schema']): string {
  if (!schema) return '';
  const parts: string[] = [];
  for (const [part, value] of Object.entries(schema)) {
    if (part === 'response' && value && typeof value === 'object') {
      for (const [status, body] of Object.entries(value)) parts.push(`${status}=${idOf(body)}`);
    } else parts.push(`${part}=${idOf(value)}`);
  }
  return parts.join(',');
}

function routesKey(routes: readonly CatalogRoute[]): string {
  return routes
    .map((r) =>
      [r.method, r.url, r.scope, r.summary, r.inferred, r.documentedStatuses?.join('/'), r.documentedScope, r.operationId, schemaKey(r.schema)].join('\u0000'),
    )
    .join('\u0001');
}

const documents = new Map<string, string>();

/** `build`'s document of these routes, or the one it built before for the same routes. */
export function memoizedDocument(routes: readonly CatalogRoute[], build: (routes: readonly CatalogRoute[]) => string): string {
  const key = routesKey(routes);
  let text = documents.get(key);
  if (text === undefined) {
    text = build(routes);
    if (documents.size >= KEPT) documents.delete(documents.keys().next().value!);
  } else documents.delete(key); // most recently used last
  documents.set(key, text);
  return text;
}
