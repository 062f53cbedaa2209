import { z } from 'zod';
import { defineCollection } from './collection.ts';
import { maskId, maskValue, parseMask, type IdMask } from './id-mask.ts';
import { GLOBAL_PARTITION, type Collections, type FileEdit, type InitialCollections, type ReplaceOptions, type InstrumentedStore, type Op, type Row, type SpannedJson, type Store, type StoreChange, type StoreStats } from './types.ts';

/**
 * Copy-on-write workspaces (issue 12; docs/architecture.md, "Workspaces on
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
 */
export const OVERLAYS_COLLECTION = 'workspaceOverlays';
export const BASE_PREFIX = '~base:';
const TOMBSTONE = '~deleted';

export const OverlayRecordSchema = z.object({ id: z.string(), baseId: z.string(), mask: z.string(), templateId: z.string(), createdAt: z.string() });
export type OverlayRecord = z.output<typeof OverlayRecordSchema>;
/** The created workspaces, one row each, in the engine's global partition (never seen through the overlay). */
export const OVERLAYS = defineCollection({ name: OVERLAYS_COLLECTION, schema: OverlayRecordSchema, idPrefix: 'wksp', internal: true });

export const basePartition = (baseId: string): string => `${BASE_PREFIX}${baseId}`;
export const isTombstone = (row: Row | undefined): boolean => row !== undefined && row[TOMBSTONE] === true;
export const tombstone = (id: string): Row => ({ id, [TOMBSTONE]: true });

interface View {
  record: OverlayRecord;
  base: string;
  mask: IdMask;
  /** base rows rewritten into this workspace's ids, by collection, built on first read */
  rows: Map<string, Map<string, Row>>;
  lists: Map<string, readonly Row[]>;
  merged: Map<string, { version: number; list: readonly Row[] }>;
}

export class OverlayStore implements Store {
  readonly #views = new Map<string, View>();
  readonly #listeners = new Set<(change: StoreChange) => void>();

  constructor(
    readonly inner: Store,
    /** rewrites a base row for one workspace beyond its ids (fresh secrets) */
    private readonly freshen: (collection: string, row: Row, mask: string) => Row = (_c, row) => row,
  ) {
    inner.onChange((change) => this.#forward(change));
  }

  get path(): string | null {
    return this.inner.path;
  }

  /** The overlay record of a created workspace, or undefined. */
  overlay(workspaceId: string): OverlayRecord | undefined {
    return this.#view(workspaceId)?.record;
  }

  get<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, id: string): T | undefined {
    const view = this.#view(workspaceId);
    const own = this.inner.get<T>(collection, workspaceId, id);
    if (!view) return own;
    if (own) return isTombstone(own as unknown as Row) ? undefined : own;
    return this.#baseRow(view, collection, id) as T | undefined;
  }

  list<T extends { readonly id: string } = Row>(collection: string, workspaceId: string): readonly T[] {
    const view = this.#view(workspaceId);
    const own = this.inner.list<T>(collection, workspaceId) as unknown as readonly Row[];
    if (!view) return own as unknown as readonly T[];
    const version = this.inner.version(collection, workspaceId);
    const cached = view.merged.get(collection);
    if (cached && cached.version === version) return cached.list as unknown as readonly T[];
    const base = this.#baseList(view, collection);
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

  count(collection: string, workspaceId: string): number {
    return this.#view(workspaceId) ? this.list(collection, workspaceId).length : this.inner.count(collection, workspaceId);
  }

  scan<T extends { readonly id: string } = Row>(collection: string, workspaceId: string): Iterable<T> {
    return this.#view(workspaceId) ? this.list<T>(collection, workspaceId) : this.inner.scan<T>(collection, workspaceId);
  }

  partitions(collection: string): string[] {
    const out = this.inner.partitions(collection).filter((p) => !p.startsWith(BASE_PREFIX));
    const seen = new Set(out);
    for (const record of this.inner.list<OverlayRecord>(OVERLAYS_COLLECTION, GLOBAL_PARTITION)) {
      if (!seen.has(record.id) && this.inner.list(collection, basePartition(record.baseId)).length > 0) out.push(record.id);
    }
    return out;
  }

  version(collection: string, workspaceId: string): number {
    return this.inner.version(collection, workspaceId);
  }

  commit(ops: readonly Op[]): Promise<void> {
    const mapped = ops.map((op) => {
      if (op.type !== 'delete') return op;
      const view = this.#view(op.workspaceId);
      if (!view || !this.#baseRow(view, op.collection, op.id)) return op;
      return { type: 'put' as const, collection: op.collection, workspaceId: op.workspaceId, row: tombstone(op.id) };
    });
    return this.inner.commit(mapped);
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
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  flush(): Promise<void> {
    return this.inner.flush();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** compacts the journal when the engine can (watch mode) */
  compact(): Promise<void> {
    const engine = this.inner as Store & { compact?: () => Promise<void> };
    return engine.compact ? engine.compact() : Promise.resolve();
  }

  /** the engine's sequence number and counters (diagnostics, tests) */
  get seq(): number {
    return (this.inner as Partial<InstrumentedStore>).seq ?? 0;
  }

  get stats(): Readonly<StoreStats> | undefined {
    return (this.inner as Partial<InstrumentedStore>).stats;
  }

  /** releases the engine's files without writing (a test's "killed" sandbox) */
  abandon(): Promise<void> {
    const engine = this.inner as Store & { abandon?: () => Promise<void> };
    return engine.abandon ? engine.abandon() : Promise.resolve();
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

  // ---------------------------------------------------------------- internals

  #view(workspaceId: string): View | undefined {
    if (workspaceId === GLOBAL_PARTITION || workspaceId.startsWith(BASE_PREFIX)) return undefined;
    const record = this.inner.get<OverlayRecord>(OVERLAYS_COLLECTION, GLOBAL_PARTITION, workspaceId);
    if (!record) {
      this.#views.delete(workspaceId);
      return undefined;
    }
    let view = this.#views.get(workspaceId);
    if (!view || view.record !== record) {
      view = { record, base: basePartition(record.baseId), mask: parseMask(record.mask), rows: new Map(), lists: new Map(), merged: new Map() };
      this.#views.set(workspaceId, view);
    }
    return view;
  }

  #rewrite(view: View, collection: string, row: Row): Row {
    let rows = view.rows.get(collection);
    if (!rows) view.rows.set(collection, (rows = new Map()));
    const id = maskId(row.id, view.mask);
    let out = rows.get(id);
    if (!out) rows.set(id, (out = this.freshen(collection, maskValue(row, view.mask) as Row, view.record.mask)));
    return out;
  }

  #baseRow(view: View, collection: string, id: string): Row | undefined {
    const row = this.inner.get(collection, view.base, maskId(id, view.mask));
    return row ? this.#rewrite(view, collection, row) : undefined;
  }

  #baseList(view: View, collection: string): readonly Row[] {
    let list = view.lists.get(collection);
    if (!list) {
      list = Object.freeze(this.inner.list(collection, view.base).map((row) => this.#rewrite(view, collection, row)));
      view.lists.set(collection, list);
    }
    return list;
  }

  /** Re-emits the engine's changes as the merged view shows them. */
  #forward(change: StoreChange): void {
    let out: StoreChange = change;
    if (change.kind === 'replaced') this.#views.clear();
    else {
      const ops: Op[] = [];
      for (const op of change.ops) {
        if (op.workspaceId.startsWith(BASE_PREFIX)) continue;
        const view = this.#view(op.workspaceId);
        if (!view) ops.push(op);
        else if (op.type === 'put') ops.push(isTombstone(op.row) ? { type: 'delete', collection: op.collection, workspaceId: op.workspaceId, id: op.row.id } : op);
        else {
          // an own row went away: the base row, if any, shows through again
          const base = this.#baseRow(view, op.collection, op.id);
          ops.push(base ? { type: 'put', collection: op.collection, workspaceId: op.workspaceId, row: base } : op);
        }
      }
      if (ops.length === 0) return;
      out = { kind: 'ops', ops };
    }
    for (const listener of Array.from(this.#listeners)) {
      try {
        listener(out);
      } catch (err) {
        console.error('[storage] onChange listener threw:', err);
      }
    }
  }
}
