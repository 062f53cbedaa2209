import { rowHolds } from './row-text.ts';
import { maskId } from './id-mask.ts';
import { ChangeFeed } from './change-feed.ts';
import { BASE_PREFIX, basePartition, isTombstone, OVERLAYS_COLLECTION, tombstone, type OverlayRecord } from './overlay-records.ts';
import { DEFAULT_CACHED_ROWS, OverlayViews, type OverlayStoreOptions } from './overlay-views.ts';
import {
  GLOBAL_PARTITION,
  type Collections,
  type CommitOptions,
  type FileEdit,
  type InitialCollections,
  type ReplaceOptions,
  type InstrumentedStore,
  type Op,
  type Row,
  type ScanOptions,
  type SpannedJson,
  type Store,
  type StoreChange,
  type StoreStats,
} from './types.ts';

/**
 * Copy-on-write workspaces (docs/architecture.md, "Workspaces on
 * demand"), behind the Store interface so that no service knows about them.
 *
 * A created workspace is a row of OVERLAYS_COLLECTION: `{id, baseId, mask}`.
 * Its template's rows are kept once, in partitions named `~base:<baseId>`,
 * and shared by every workspace created from that template. Reading a
 * created workspace's partition merges its own rows (what it wrote) over the
 * base rows, with ids rewritten by the workspace's mask (id-mask.ts). A delete
 * of a base row is stored as a tombstone row in the workspace's own partition.
 * Creating a workspace therefore writes a few rows whatever the template's
 * size, a workspace that is never written costs only what it has read, and a
 * reset deletes its own rows.
 *
 * Base partitions are hidden from partitions(); everything else (the raw
 * state, export, replaceAll, flush) passes through, so snapshots and the file
 * on disk hold bases, overlays and tombstones as plain rows.
 *
 * Rewritten base rows are kept for the next read, within one budget of rows
 * shared by every created workspace: past it, the caches
 * of the workspaces read least recently are dropped, to be rewritten again
 * from the base and the mask when next read (overlay-views.ts). So memory
 * follows what was written (own rows, in the engine), not what was read. A
 * replaced state (global reset, restore) drops every cache.
 */
export class OverlayStore implements Store {
  readonly #changes = new ChangeFeed();
  /** what created workspaces keep of what they read */
  readonly #views: OverlayViews;

  constructor(
    readonly inner: InstrumentedStore,
    options: OverlayStoreOptions = {},
  ) {
    this.#views = new OverlayViews(inner, options.freshen ?? ((_c, row) => row), options.cachedRows ?? DEFAULT_CACHED_ROWS);
    inner.onChange((change) => this.#forward(change));
  }

  /** What the views hold now (diagnostics, tests of the bound). */
  get cacheStats(): { views: number; rows: number; budget: number } {
    return this.#views.stats;
  }

  get path(): string | null {
    return this.inner.path;
  }

  /** The overlay record of a created workspace, or undefined. */
  overlay(workspaceId: string): OverlayRecord | undefined {
    return this.#views.view(workspaceId)?.record;
  }

  get<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, id: string): T | undefined {
    const view = this.#views.view(workspaceId);
    const own = this.inner.get<T>(collection, workspaceId, id);
    if (!view) return own;
    if (own) return isTombstone(own as unknown as Row) ? undefined : own;
    return this.#views.baseRow(view, collection, id) as T | undefined;
  }

  list<T extends { readonly id: string } = Row>(collection: string, workspaceId: string): readonly T[] {
    const view = this.#views.view(workspaceId);
    const own = this.inner.list<T>(collection, workspaceId) as unknown as readonly Row[];
    if (!view) return own as unknown as readonly T[];
    const version = this.inner.version(collection, workspaceId);
    const cached = view.merged.get(collection);
    if (cached && cached.version === version) return cached.list as unknown as readonly T[];
    const base = this.#views.baseList(view, collection);
    let list: readonly Row[] = base;
    if (own.length > 0) {
      const ownById = new Map(own.map((row) => [row.id, row]));
      const out: Row[] = [];
      const baseIds = new Set<string>();
      for (const row of base) {
        baseIds.add(row.id);
        const mine = ownById.get(row.id);
        if (mine === undefined) out.push(row);
        else if (!isTombstone(mine)) out.push(mine);
      }
      for (const row of own) if (!baseIds.has(row.id) && !isTombstone(row)) out.push(row);
      list = Object.freeze(out);
    }
    view.merged.set(collection, { version, list });
    return list as unknown as readonly T[];
  }

  /**
   * A created workspace's rows whose `field` is `value`, without rewriting the
   * others: a base row matches when its own field is the value under the
   * mask (maskId is its own inverse, and leaves strings that are not ids as
   * they are). Not for fields that `freshen` changes.
   */
  listWhere<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, field: string, value: string): readonly T[] {
    const view = this.#views.view(workspaceId);
    const matches = (row: Row) => row[field] === value;
    if (!view) return this.inner.list<T>(collection, workspaceId).filter((row) => matches(row as unknown as Row));
    const cached = view.merged.get(collection);
    if (cached && cached.version === this.inner.version(collection, workspaceId)) return cached.list.filter(matches) as unknown as readonly T[];
    const own = this.inner.list(collection, workspaceId);
    const ownById = own.length > 0 ? new Map(own.map((row) => [row.id, row])) : null;
    const baseIds = new Set<string>();
    const raw = maskId(value, view.mask);
    const out: Row[] = [];
    for (const row of this.inner.list(collection, view.base)) {
      // with no own rows, a base row that does not match costs one comparison (no id rewritten)
      const mine = ownById === null ? undefined : ownById.get(maskId(row.id, view.mask));
      if (ownById !== null) baseIds.add(maskId(row.id, view.mask));
      if (mine !== undefined) {
        if (!isTombstone(mine) && matches(mine)) out.push(mine);
      } else if (row[field] === raw) out.push(this.#views.rewrite(view, collection, row));
    }
    for (const row of own) if (!baseIds.has(row.id) && !isTombstone(row) && matches(row)) out.push(row);
    this.#views.trim(view);
    return out as unknown as readonly T[];
  }

  count(collection: string, workspaceId: string): number {
    return this.#views.view(workspaceId) ? this.list(collection, workspaceId).length : this.inner.count(collection, workspaceId);
  }

  scan<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, options: ScanOptions = {}): Iterable<T> {
    if (!this.#views.view(workspaceId)) return this.inner.scan<T>(collection, workspaceId, options);
    // a merged view is a frozen list: detached already
    const list = this.list<T>(collection, workspaceId);
    return options.from ? list.slice(Math.max(0, options.from)) : list;
  }

  scanMatching<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, needle: string): Iterable<T | null> {
    if (!this.#views.view(workspaceId)) return this.inner.scanMatching<T>(collection, workspaceId, needle);
    return this.list<T>(collection, workspaceId).filter((row) => rowHolds(row, needle));
  }

  partitions(collection: string): string[] {
    const out = this.inner.partitions(collection).filter((p) => !p.startsWith(BASE_PREFIX));
    const seen = new Set(out);
    // a thousand workspaces share a base or two: look at each base once (a global reset asks this of every collection)
    const baseHasRows = new Map<string, boolean>();
    for (const record of this.inner.list<OverlayRecord>(OVERLAYS_COLLECTION, GLOBAL_PARTITION)) {
      let has = baseHasRows.get(record.baseId);
      if (has === undefined) baseHasRows.set(record.baseId, (has = this.inner.count(collection, basePartition(record.baseId)) > 0));
      if (has && !seen.has(record.id)) out.push(record.id);
    }
    return out;
  }

  version(collection: string, workspaceId: string): number {
    return this.inner.version(collection, workspaceId);
  }

  commit(ops: readonly Op[], options?: CommitOptions): Promise<void> {
    const mapped = ops.map((op) => {
      if (op.type !== 'delete') return op;
      const view = this.#views.view(op.workspaceId);
      if (!view || !this.#views.baseRow(view, op.collection, op.id)) return op;
      return { type: 'put' as const, collection: op.collection, workspaceId: op.workspaceId, row: tombstone(op.id) };
    });
    return this.inner.commit(mapped, options);
  }

  replaceAll(collections: InitialCollections, options?: ReplaceOptions): Promise<void> {
    return this.inner.replaceAll(collections, options);
  }

  exportCollections(): Collections {
    return this.inner.exportCollections();
  }

  serialize(): string {
    return this.inner.serialize();
  }

  exportJson(): SpannedJson {
    return this.inner.exportJson();
  }

  onChange(listener: (change: StoreChange) => void): () => void {
    return this.#changes.listen(listener);
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** compacts the journal into the snapshot file (watch mode; nothing in memory) */
  compact(): Promise<void> {
    return this.inner.compact();
  }

  /** the engine's sequence number and counters (diagnostics, tests) */
  get seq(): number {
    return this.inner.seq;
  }

  get stats(): Readonly<StoreStats> {
    return this.inner.stats;
  }

  /** releases the engine's files without writing (a test's "killed" sandbox) */
  abandon(): Promise<void> {
    return this.inner.abandon();
  }

  trackHandEdits(): Promise<void> {
    return this.inner.trackHandEdits();
  }

  readFileEdit(): Promise<FileEdit> {
    return this.inner.readFileEdit();
  }

  noteEditHandled(hash: string): void {
    this.inner.noteEditHandled(hash);
  }

  /** Re-emits the engine's changes as the merged view shows them. */
  #forward(change: StoreChange): void {
    let out: StoreChange = change;
    if (change.kind === 'replaced') {
      this.#views.clear();
    } else {
      const ops: Op[] = [];
      for (const op of change.ops) {
        if (op.workspaceId.startsWith(BASE_PREFIX)) continue;
        const view = this.#views.view(op.workspaceId);
        if (!view) ops.push(op);
        else if (op.type === 'put')
          ops.push(isTombstone(op.row) ? { type: 'delete', collection: op.collection, workspaceId: op.workspaceId, id: op.row.id } : op);
        else {
          // an own row went away: the base row, if any, shows through again
          const base = this.#views.baseRow(view, op.collection, op.id);
          ops.push(base ? { type: 'put', collection: op.collection, workspaceId: op.workspaceId, row: base } : op);
        }
      }
      if (ops.length === 0) return;
      out = { kind: 'ops', ops };
    }
    this.#changes.emit(out);
  }
}
