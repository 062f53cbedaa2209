import { FieldIndex, rowHolds, type Collection, type Row, type Store } from '../storage/index.ts';
import { ApiError } from '../core/errors.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { DATA_ROUTES } from './contracts/data.ts';
import { requireWorkspace } from '../core/workspace-lookup.ts';

/**
 * The data inspector (docs/control-plane.md, "Data inspector"): the
 * records of a workspace's collections for the browser page and `sandbox data`.
 * The routes' shapes are in ./contracts/data.ts.
 *
 * Cost: a page costs the page, not the collection. `total` is the store's
 * count; the rows come from `store.scan` from the offset (a packed partition skips the
 * pages before the offset without inflating them, and the walk stops once
 * the page is full), never from `list()`, which would inflate a large packed
 * partition whole (storage/large-files/packed-rows.ts). A `q` search goes through the
 * matches in order (`store.scanMatching`: a packed partition parses only the
 * pages whose text holds `q`) until its page is full, then counts on until
 * EXACT_COUNT_ROWS matches; past that `total` is a lower bound and
 * `totalIsExact` false. A search with few matches reads the whole collection's
 * text (bench section "data" has the figures at 100k bookings), from a copy of
 * the partition, in slices between other work (dataPage).
 */
export const EXACT_COUNT_ROWS = 2_000;
/** Stored fields that hold secrets, by stored collection: answered as REDACTED, never searched. */
export const SECRET_FIELDS: Readonly<Record<string, readonly string[]>> = {
  orgApiKeys: ['keyHash'],
  verifications: ['codeHash'],
  webhookSubscriptions: ['secret'],
};
export const REDACTED = '[redacted]';
/** Links the id prefixes cannot find (gallery folders have bare UUIDs): stored collection -> field -> collection. */
const UNPREFIXED_LINKS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  galleryFiles: { folderId: 'galleryFolders' },
  galleryFolders: { parentId: 'galleryFolders' },
};
/**
 * What points back to a record: [from collection, field, to collection] (stored names). Counted
 * through a FieldIndex per field (built by one scan of its collection on first use, then kept
 * from the change feed; the booking's passengers and items share the bookings area's own).
 */
export const RELATIONS: readonly (readonly [from: string, field: string, to: string])[] = [
  ['passengers', 'bookingId', 'bookings'],
  ['bookingItems', 'bookingId', 'bookings'],
  ['bookings', 'customerId', 'people'],
  ['passengers', 'personId', 'people'],
  ['bookings', 'departureId', 'departures'],
  ['bookingItems', 'refId', 'departures'],
  ['departures', 'productId', 'products'],
  ['pricingOptions', 'productId', 'products'],
  ['extensions', 'productId', 'products'],
  ['bookings', 'productId', 'products'],
  ['orgApiKeys', 'organizationId', 'organizations'],
  ['webhookDeliveries', 'subscriptionId', 'webhookSubscriptions'],
  ['galleryFiles', 'folderId', 'galleryFolders'],
  ['galleryFolders', 'parentId', 'galleryFolders'],
];
/** links listed per record at most */
const MAX_LINKS = 200;

/** `webhookSubscriptions` -> `webhook_subscriptions`: how the API names a stored collection. */
export const apiName = (stored: string): string => stored.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** The collections the inspector shows (every one but the sandbox's bookkeeping), by both names. */
class InspectedCollections {
  readonly shown: readonly Collection[];
  readonly #byName = new Map<string, Collection>();
  /** `<prefix>_` -> collection, longest prefix first (`gal_file_` before any `gal_`) */
  readonly #prefixes: [string, Collection][];

  constructor(all: readonly Collection[]) {
    this.shown = all.filter((c) => !c.internal);
    for (const c of this.shown) this.#byName.set(apiName(c.name), c).set(c.name, c);
    this.#prefixes = this.shown.filter((c) => c.idPrefix !== null).map((c) => [`${c.idPrefix}_`, c] as [string, Collection]);
    this.#prefixes.sort((a, b) => b[0].length - a[0].length);
  }

  require(name: string): Collection {
    const found = this.#byName.get(name);
    if (found) return found;
    throw new ApiError(404, { error: `Collection ${name} not found; the collections are: ${this.shown.map((c) => apiName(c.name)).join(', ')}` });
  }

  /** the collection whose ids look like `value` (`<prefix>_<id>`), if any */
  ofId(value: string): Collection | undefined {
    for (const [prefix, c] of this.#prefixes) if (value.startsWith(prefix)) return /^[A-Za-z0-9-]+$/.test(value.slice(prefix.length)) ? c : undefined;
    return undefined;
  }
}

const inspected = new WeakMap<SandboxContext, InspectedCollections>();
function collectionsOf(ctx: SandboxContext): InspectedCollections {
  let found = inspected.get(ctx);
  if (!found) inspected.set(ctx, (found = new InspectedCollections(ctx.collections.all)));
  return found;
}

/** A row as the inspector shows it: its secret fields replaced by REDACTED (a copy; the stored row is untouched). */
export function redact(collection: string, row: Row): Row {
  const fields = SECRET_FIELDS[collection];
  if (!fields?.some((f) => f in row)) return row;
  const out: Record<string, unknown> = { ...row };
  for (const f of fields) if (f in out) out[f] = REDACTED;
  return out as Row;
}

export function registerDataRoutes(app: ZodApp, ctx: SandboxContext): void {
  serveAll(app, DATA_ROUTES, {
    dataCollections: async (request) => {
      const ws = requireWorkspace(ctx, request.params.id).id;
      return collectionsOf(ctx).shown.map((c) => ({ name: apiName(c.name), stored: c.name, count: ctx.store.count(c.name, ws), idPrefix: c.idPrefix }));
    },

    dataPage: async (request) => {
      const ws = requireWorkspace(ctx, request.params.id).id;
      const collection = collectionsOf(ctx).require(request.params.collection);
      const { limit, offset, q, id, order } = request.query;
      return { collection: apiName(collection.name), ...(await dataPage(ctx.store, collection.name, ws, { limit, offset, q, id, order })), limit, offset };
    },

    dataRecord: async (request) => {
      const ws = requireWorkspace(ctx, request.params.id).id;
      const collections = collectionsOf(ctx);
      const collection = collections.require(request.params.collection);
      const row = ctx.store.get(collection.name, ws, request.params.recordId);
      if (!row) throw new ApiError(404, { error: `${apiName(collection.name)} record ${request.params.recordId} not found in workspace ${ws}` });
      const record = redact(collection.name, row);
      const related = await relatedTo(ctx.store, ws, collection.name, row.id);
      return { collection: apiName(collection.name), record, links: linksOf(ctx.store, ws, collections, collection.name, record), related };
    },
  });
}

interface PageQuery {
  limit: number;
  offset: number;
  q?: string | undefined;
  id?: string | undefined;
  /** newest: the page counted from the end of the partition, newest first (in stored order a booking just made is row 92 of 92) */
  order?: 'stored' | 'newest' | undefined;
}

/** Time a search runs before it lets other work in (tests make it 0: a pause at every page). */
export const SEARCH_SLICE = { ms: 8 };

/**
 * One page of a partition, in stored order (see the module's comment for what it costs). A `q`
 * search walks a copy of the partition in slices of SEARCH_SLICE.ms between other work: over 100k
 * bookings it takes a second or two, which would otherwise hold every other request.
 */
export async function dataPage(store: Store, collection: string, ws: string, query: PageQuery): Promise<{ rows: Row[]; total: number; totalIsExact: boolean }> {
  const { limit, offset } = query;
  const needle = query.q?.trim().toLowerCase() || undefined;
  const matches = (row: Row) => needle === undefined || rowHolds(redact(collection, row), needle);
  // `id=` and `q=` left empty (a form's fields sent as they are) are no filter
  if (query.id !== undefined && query.id !== '') {
    const row = store.get(collection, ws, query.id);
    const found = row !== undefined && matches(row) ? [redact(collection, row)] : [];
    return { rows: offset === 0 ? found : [], total: found.length, totalIsExact: true };
  }
  if (needle === undefined) {
    const total = store.count(collection, ws);
    const rows: Row[] = [];
    // newest first: the same walk from the end's side (rows total-offset-limit .. total-offset-1), reversed
    const newest = query.order === 'newest';
    const from = newest ? Math.max(0, total - offset - limit) : offset;
    const take = newest ? Math.max(0, total - offset - from) : limit;
    if (offset < total) {
      for (const row of store.scan(collection, ws, { from })) {
        rows.push(redact(collection, row));
        if (rows.length === take) break;
      }
    }
    return { rows: newest ? rows.reverse() : rows, total, totalIsExact: true };
  }
  const rows: Row[] = [];
  let total = 0;
  // a collection without secrets is searched by the store (a packed partition parses only the pages
  // that hold the text); one with secrets is searched here, on its redacted rows
  // (a null is a pause point between two packed pages)
  const found: Iterable<Row | null> =
    SECRET_FIELDS[collection] === undefined ? store.scanMatching(collection, ws, needle) : filter(store.scan(collection, ws, { detached: true }), matches);
  let deadline = performance.now() + SEARCH_SLICE.ms;
  for (const row of found) {
    if (performance.now() >= deadline) {
      await new Promise((resolve) => setImmediate(resolve));
      deadline = performance.now() + SEARCH_SLICE.ms;
    }
    if (row === null) continue;
    // the page is full and enough matches were counted: stop (there may be more)
    if (rows.length === limit && total >= EXACT_COUNT_ROWS) return { rows, total, totalIsExact: false };
    total++;
    if (total > offset && rows.length < limit) rows.push(redact(collection, row));
  }
  return { rows, total, totalIsExact: true };
}

function* filter<T>(rows: Iterable<T>, keep: (row: T) => boolean): IterableIterator<T> {
  for (const row of rows) if (keep(row)) yield row;
}

/** The ids a record holds, at any depth, that name a record of a shown collection (its own id left out). */
function linksOf(store: Store, ws: string, collections: InspectedCollections, collection: string, record: Row) {
  const links: { field: string; collection: string; id: string; exists: boolean }[] = [];
  const unprefixed = UNPREFIXED_LINKS[collection] ?? {};
  const add = (field: string, target: Collection, id: string) => {
    if (links.length < MAX_LINKS) links.push({ field, collection: apiName(target.name), id, exists: store.get(target.name, ws, id) !== undefined });
  };
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') {
      const target = unprefixed[path] !== undefined ? collections.require(unprefixed[path]) : collections.ofId(value);
      if (target && value !== '') add(path, target, value);
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${path}.${i}`));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) walk(item, path === '' ? key : `${path}.${key}`);
    }
  };
  for (const [key, value] of Object.entries(record)) if (key !== 'id') walk(value, key);
  return links;
}

/**
 * The records of other collections that point to this one (RELATIONS), with the `q` that lists them.
 * Each index is made ready first in slices (FieldIndex.prepare): a first count over 100k bookings
 * built its index in one go and held every other request for 2.5-3 s (docs/benchmarks.md section 13).
 */
async function relatedTo(store: Store, ws: string, collection: string, id: string) {
  const relations = RELATIONS.filter(([, , to]) => to === collection).map(([from, field]) => ({
    from,
    field,
    index: FieldIndex.of<Row>(store, from, field, (row) => (typeof row[field] === 'string' ? (row[field] as string) : null)),
  }));
  for (const { index } of relations) await index.prepare(ws);
  return relations.map(({ from, field, index }) => ({ collection: apiName(from), field, count: index.ids(ws, id).size, q: id }));
}
