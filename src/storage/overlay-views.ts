import { maskId, maskValue, parseMask, type IdMask } from './id-mask.ts';
import { BASE_PREFIX, basePartition, OVERLAYS_COLLECTION, type OverlayRecord } from './overlay-records.ts';
import { GLOBAL_PARTITION, type Row, type Store } from './types.ts';

/**
 * What created workspaces keep of what they read: each
 * one's base rows rewritten into its ids, kept for the next read within one
 * budget of rows for all of them. Past it, the workspaces read least recently
 * are dropped, to be rewritten again from the base and the mask when next
 * read: memory follows what was written (own rows, in the engine), not what
 * was read. The workspace being read is never dropped by its own read.
 */

/**
 * Rewritten base rows kept across all created workspaces (default). A worker
 * that lists the sandbox template's products and bookings rewrites 130 rows;
 * 20,000 keep the last 150 such workers' reads, in about 12 MiB (1,000
 * workers: 33 MiB of heap at 50,000 rows, 10 at 10,000, 5 at none).
 */
export const DEFAULT_CACHED_ROWS = 20_000;

export interface OverlayStoreOptions {
  /** rewrites a base row for one workspace beyond its ids (its fresh secrets: src/workspaces/templates.ts) */
  freshen?: (collection: string, row: Row, overlay: OverlayRecord) => Row;
  /** rewritten rows kept in memory across all created workspaces (DEFAULT_CACHED_ROWS) */
  cachedRows?: number;
}

export interface View {
  record: OverlayRecord;
  base: string;
  mask: IdMask;
  /** base rows rewritten into this workspace's ids, by collection, built on first read */
  rows: Map<string, Map<string, Row>>;
  lists: Map<string, readonly Row[]>;
  merged: Map<string, { version: number; list: readonly Row[] }>;
  /** rows held in `rows` (what this view counts against the budget) */
  cached: number;
}

export class OverlayViews {
  /** by workspace id, least recently read first */
  readonly #views = new Map<string, View>();
  /** rewritten rows held by all views */
  #cached = 0;
  /** the last key of #views (a read of the newest view needs no reordering) */
  #newest: string | undefined;

  constructor(
    private readonly inner: Store,
    private readonly freshen: (collection: string, row: Row, overlay: OverlayRecord) => Row,
    private readonly budget: number,
  ) {}

  get stats(): { views: number; rows: number; budget: number } {
    return { views: this.#views.size, rows: this.#cached, budget: this.budget };
  }

  /** Forgets every view (the state was replaced). */
  clear(): void {
    this.#views.clear();
    this.#cached = 0;
    this.#newest = undefined;
  }

  /** The view of a created workspace (now its most recently read), or undefined. */
  view(workspaceId: string): View | undefined {
    if (workspaceId === GLOBAL_PARTITION || workspaceId.startsWith(BASE_PREFIX)) return undefined;
    const record = this.inner.get<OverlayRecord>(OVERLAYS_COLLECTION, GLOBAL_PARTITION, workspaceId);
    let view = this.#views.get(workspaceId);
    if (!record) {
      if (view) this.#drop(workspaceId, view);
      return undefined;
    }
    if (view && view.record !== record) {
      this.#drop(workspaceId, view);
      view = undefined;
    }
    if (view && this.#newest === workspaceId) return view;
    if (!view)
      view = { record, base: basePartition(record.baseId), mask: parseMask(record.mask), rows: new Map(), lists: new Map(), merged: new Map(), cached: 0 };
    else this.#views.delete(workspaceId); // to the end: the most recently read
    this.#views.set(workspaceId, view);
    this.#newest = workspaceId;
    return view;
  }

  #drop(workspaceId: string, view: View): void {
    this.#cached -= view.cached;
    this.#views.delete(workspaceId);
    if (this.#newest === workspaceId) this.#newest = undefined;
  }

  /** Drops the caches of the workspaces read least recently until the budget holds; never `current`'s. */
  trim(current: View): void {
    if (this.#cached <= this.budget) return;
    for (const [workspaceId, view] of this.#views) {
      if (this.#cached <= this.budget) return;
      if (view !== current) this.#drop(workspaceId, view);
    }
  }

  /** A base row in the workspace's ids (and secrets), kept for its next read. */
  rewrite(view: View, collection: string, row: Row): Row {
    let rows = view.rows.get(collection);
    if (!rows) view.rows.set(collection, (rows = new Map()));
    const id = maskId(row.id, view.mask);
    let out = rows.get(id);
    if (!out) {
      rows.set(id, (out = this.freshen(collection, maskValue(row, view.mask) as Row, view.record)));
      view.cached++;
      this.#cached++;
    }
    return out;
  }

  /** The base row behind an id of the workspace, rewritten, or undefined. */
  baseRow(view: View, collection: string, id: string): Row | undefined {
    const row = this.inner.get(collection, view.base, maskId(id, view.mask));
    if (!row) return undefined;
    const out = this.rewrite(view, collection, row);
    this.trim(view);
    return out;
  }

  /** The base's rows, rewritten, in their order. */
  baseList(view: View, collection: string): readonly Row[] {
    let list = view.lists.get(collection);
    if (!list) {
      list = Object.freeze(this.inner.list(collection, view.base).map((row) => this.rewrite(view, collection, row)));
      view.lists.set(collection, list);
      this.trim(view);
    }
    return list;
  }
}
