/**
 * The read side of the storage engine (LocalStore, store.ts): every read of the
 * rows it holds in memory. A read touches neither the files nor the seq, so it
 * lives apart from the engine's writes, journal and lifecycle; the engine
 * extends this class and swaps `state` whole on replaceAll().
 *
 * A partition is a Map of rows, or a PackedRows (large-files/packed-rows.ts) once it is
 * large: the scans below walk a packed one page by page and never hold all of
 * its rows as objects at once.
 */
import { collectionsFromState, type State } from './codec.ts';
import { jsonWithSpans } from './deferred.ts';
import { LazyState } from './lazy-state.ts';
import { PackedRows } from './large-files/index.ts';
import { partitionList } from './partition-list.ts';
import { rowHolds } from './row-text.ts';
import { SCHEMA_VERSION, type Collections, type DbSnapshot, type Row, type ScanOptions, type SpannedJson } from './types.ts';

const EMPTY_LIST: readonly Row[] = Object.freeze([]);

export abstract class StoreReads {
  /** by collection, then workspace partition; replaced whole by the engine's replaceAll() */
  protected state: State;
  /** version of partitions that do not exist (bumped by replaceAll) */
  protected baseVersion: number;

  protected constructor(state: State, baseVersion: number) {
    this.state = state;
    this.baseVersion = baseVersion;
  }

  /** sequence number of the last commit (or replaceAll) applied in memory: the engine's */
  abstract get seq(): number;

  /** collections given deferred and not read yet (diagnostics, tests) */
  get pendingCollections(): string[] {
    return this.state instanceof LazyState ? this.state.pendingNames : [];
  }

  get<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, id: string): T | undefined {
    return this.state.get(collection)?.get(workspaceId)?.rows.get(id) as T | undefined;
  }

  list<T extends { readonly id: string } = Row>(collection: string, workspaceId: string): readonly T[] {
    const partition = this.state.get(collection)?.get(workspaceId);
    if (!partition || partition.rows.size === 0) return EMPTY_LIST as readonly T[];
    return partitionList(partition) as readonly T[];
  }

  listWhere<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, field: string, value: string): readonly T[] {
    return this.list<T>(collection, workspaceId).filter((row) => (row as unknown as Row)[field] === value);
  }

  count(collection: string, workspaceId: string): number {
    return this.state.get(collection)?.get(workspaceId)?.rows.size ?? 0;
  }

  scan<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, options: ScanOptions = {}): Iterable<T> {
    const partition = this.state.get(collection)?.get(workspaceId);
    if (!partition) return EMPTY_LIST as readonly T[];
    const from = Math.max(0, options.from ?? 0);
    const rows = partition.rows;
    if (rows instanceof PackedRows) {
      // walked page by page, never held as objects all at once; a copy of the page list is the partition as of now
      const walked = options.detached ? rows.copy() : rows;
      return (from > 0 ? walked.valuesFrom(from) : walked.values()) as Iterable<T>;
    }
    // a frozen list, never changed: a later commit makes a new one, so it is detached already
    const list = this.list<T>(collection, workspaceId);
    return from > 0 ? list.slice(from) : list;
  }

  scanMatching<T extends { readonly id: string } = Row>(collection: string, workspaceId: string, needle: string): Iterable<T | null> {
    const partition = this.state.get(collection)?.get(workspaceId);
    if (!partition) return EMPTY_LIST as readonly T[];
    if (partition.rows instanceof PackedRows) return partition.rows.copy().matching(needle, true) as Iterable<T | null>;
    return this.list<T>(collection, workspaceId).filter((row) => rowHolds(row, needle));
  }

  partitions(collection: string): string[] {
    const out: string[] = [];
    for (const [workspaceId, partition] of this.state.get(collection) ?? []) {
      if (partition.rows.size > 0) out.push(workspaceId);
    }
    return out;
  }

  version(collection: string, workspaceId: string): number {
    return this.state.get(collection)?.get(workspaceId)?.version ?? this.baseVersion;
  }

  exportCollections(): Collections {
    return JSON.parse(JSON.stringify(collectionsFromState(this.state))) as Collections;
  }

  serialize(): string {
    const snapshot: DbSnapshot = { schemaVersion: SCHEMA_VERSION, seq: this.seq, collections: collectionsFromState(this.state) };
    return JSON.stringify(snapshot);
  }

  exportJson(): SpannedJson {
    return jsonWithSpans(collectionsFromState(this.state));
  }
}
