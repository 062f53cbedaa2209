import type { z } from 'zod';
import type { Op, Row, Store } from './types.ts';

/** What every stored row has. */
export type StoredRow = { readonly id: string };

/**
 * One stored collection, declared once by the area (or core module) that owns
 * it: its name, the zod schema of its rows and the prefix of its ids
 * (API description, "Conventions" 1). The registries that used to repeat these
 * (collection names, id prefixes, record schemas) are derived from the
 * declarations (src/resources/index.ts, docs/architecture.md).
 *
 * It also builds the store ops for its rows (`putOp`, `deleteOp`): the only
 * place outside the engine where an `Op` is made.
 */
export interface Collection<T extends StoredRow = StoredRow> {
  readonly name: string;
  /** the stored-row schema; rows are typed from it (z.output) and validated by fixtures and tests */
  readonly schema: z.ZodType<T>;
  /** the id prefix without its underscore (`book`), or null for bare UUIDs or free-form ids */
  readonly idPrefix: string | null;
  /** sandbox bookkeeping (keys, idempotency, jobs...), left out of a workspace's export */
  readonly internal: boolean;
  /** a template's rows are copied into a workspace created from it (docs/architecture.md, "Workspaces on demand") */
  readonly copied: boolean;
  /** catalog that fixture files define: `--watch` re-seeds it when they change (src/fixtures/reseed.ts) */
  readonly reseeded: boolean;
  putOp(workspaceId: string, row: T): Op;
  deleteOp(workspaceId: string, id: string): Op;
  /** the row a change-feed op puts into this collection, typed; undefined for a delete or another collection's op */
  rowOf(op: Op): T | undefined;
  /** a typed handle over one store */
  in(store: Store): Repository<T>;
}

/**
 * A typed handle on one collection of one store. Rows are the stored objects
 * themselves (no parse, no copy on read: reads are on the hot path); callers
 * must not mutate them.
 */
export interface Repository<T extends StoredRow> {
  readonly collection: Collection<T>;
  get(workspaceId: string, id: string): T | undefined;
  has(workspaceId: string, id: string): boolean;
  /** rows of one partition in insertion order */
  list(workspaceId: string): readonly T[];
  /** rows of one partition whose `field` is the string `value`, in list order (Store.listWhere) */
  listWhere(workspaceId: string, field: keyof T & string, value: string): readonly T[];
  /** workspace ids that have rows in this collection */
  partitions(): string[];
  version(workspaceId: string): number;
  putOp(workspaceId: string, row: T): Op;
  deleteOp(workspaceId: string, id: string): Op;
  /** commits one put */
  put(workspaceId: string, row: T): Promise<void>;
  /** commits one delete */
  delete(workspaceId: string, id: string): Promise<void>;
}

export interface CollectionDeclaration<S extends z.ZodType<StoredRow>> {
  name: string;
  schema: S;
  idPrefix: string | null;
  /** default false */
  internal?: boolean;
  /** default: true unless internal; false for credentials and history a copy must not inherit */
  copied?: boolean;
  /** default false */
  reseeded?: boolean;
  /**
   * default false: large partitions keep most rows compressed (large-files/packed-rows.ts):
   * for the collections of seeded volume; a list of a packed partition inflates it whole.
   */
  packed?: boolean;
  /**
   * The secrets among a copied row's fields, each with how a fresh one is made: a workspace
   * created from a template gets its own values, never the template's (src/workspaces/templates.ts).
   * Declared by the area that owns the collection, so the workspaces room knows no area.
   */
  copiedSecrets?: Readonly<Record<string, () => string>>;
}

/**
 * Collections whose large partitions are packed (CollectionDeclaration.packed; the large-file
 * tier packs them). A list of a packed partition inflates every page (~1 s for 100k bookings), so
 * only the large collections of seeded volume are: those read by id or through an index, and bookings.
 */
const packedCollections = new Set<string>();

/** Lets a collection's large partitions be packed (what `packed: true` declares; tests pack their own). */
export function allowPacking(collection: string): void {
  packedCollections.add(collection);
}

export function packableCollection(collection: string): boolean {
  return packedCollections.has(collection);
}

/** Fields that are secrets in copied rows, by collection (CollectionDeclaration.copiedSecrets). */
const copiedSecrets = new Map<string, Readonly<Record<string, () => string>>>();

/** Every declared collection whose copied rows hold secrets, with those fields and their makers. */
export function declaredCopiedSecrets(): ReadonlyMap<string, Readonly<Record<string, () => string>>> {
  return copiedSecrets;
}

/** Declares a collection whose rows are `z.output<typeof schema>`. */
export function defineCollection<S extends z.ZodType<StoredRow>>(declaration: CollectionDeclaration<S>): Collection<z.output<S>> {
  const internal = declaration.internal ?? false;
  if (declaration.packed) allowPacking(declaration.name);
  if (declaration.copiedSecrets) copiedSecrets.set(declaration.name, declaration.copiedSecrets);
  return new DeclaredCollection<z.output<S>>(
    declaration.name,
    declaration.schema as unknown as z.ZodType<z.output<S>>,
    declaration.idPrefix,
    internal,
    declaration.copied ?? !internal,
    declaration.reseeded ?? false,
  );
}

class DeclaredCollection<T extends StoredRow> implements Collection<T> {
  private readonly handles = new WeakMap<Store, Repository<T>>();

  constructor(
    readonly name: string,
    readonly schema: z.ZodType<T>,
    readonly idPrefix: string | null,
    readonly internal: boolean,
    readonly copied: boolean,
    readonly reseeded: boolean,
  ) {}

  putOp(workspaceId: string, row: T): Op {
    // The one unchecked step: a row typed by the schema is a plain JSON object with an id.
    return { type: 'put', collection: this.name, workspaceId, row: row as unknown as Row };
  }

  deleteOp(workspaceId: string, id: string): Op {
    return { type: 'delete', collection: this.name, workspaceId, id };
  }

  rowOf(op: Op): T | undefined {
    // the other direction of putOp's step: what this collection stores is a row of its schema
    return op.type === 'put' && op.collection === this.name ? (op.row as unknown as T) : undefined;
  }

  in(store: Store): Repository<T> {
    let handle = this.handles.get(store);
    if (!handle) {
      handle = new StoreRepository(this, store);
      this.handles.set(store, handle);
    }
    return handle;
  }
}

class StoreRepository<T extends StoredRow> implements Repository<T> {
  constructor(
    readonly collection: Collection<T>,
    private readonly store: Store,
  ) {}

  // The rows in this collection were written through putOp (typed T), by an
  // import validated against the same shape, or by fixtures checked against the
  // schema in the test suite; reads trust them rather than parse each one.
  get(workspaceId: string, id: string): T | undefined {
    return this.store.get(this.collection.name, workspaceId, id) as unknown as T | undefined;
  }

  has(workspaceId: string, id: string): boolean {
    return this.store.get(this.collection.name, workspaceId, id) !== undefined;
  }

  list(workspaceId: string): readonly T[] {
    return this.store.list(this.collection.name, workspaceId) as unknown as readonly T[];
  }

  listWhere(workspaceId: string, field: keyof T & string, value: string): readonly T[] {
    return this.store.listWhere<T>(this.collection.name, workspaceId, field, value);
  }

  partitions(): string[] {
    return this.store.partitions(this.collection.name);
  }

  version(workspaceId: string): number {
    return this.store.version(this.collection.name, workspaceId);
  }

  putOp(workspaceId: string, row: T): Op {
    return this.collection.putOp(workspaceId, row);
  }

  deleteOp(workspaceId: string, id: string): Op {
    return this.collection.deleteOp(workspaceId, id);
  }

  put(workspaceId: string, row: T): Promise<void> {
    return this.store.commit([this.collection.putOp(workspaceId, row)]);
  }

  delete(workspaceId: string, id: string): Promise<void> {
    return this.store.commit([this.collection.deleteOp(workspaceId, id)]);
  }
}

/** The whole set of collections of one sandbox, in declaration order. */
export class CollectionRegistry {
  private readonly byName = new Map<string, Collection>();

  constructor(collections: readonly Collection[]) {
    for (const collection of collections) {
      if (this.byName.has(collection.name)) throw new Error(`Collection ${collection.name} is declared twice`);
      this.byName.set(collection.name, collection);
    }
  }

  get all(): readonly Collection[] {
    return [...this.byName.values()];
  }

  get names(): readonly string[] {
    return [...this.byName.keys()];
  }

  get(name: string): Collection | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }
}

/**
 * Ops for rows whose collection is only known at run time (workspace copies,
 * snapshots, seeding move rows of every collection alike). Typed code uses
 * its collection's `putOp`/`deleteOp` instead.
 */
export const putRowOp = (collection: string, workspaceId: string, row: Row): Op => ({ type: 'put', collection, workspaceId, row });
export const deleteRowOp = (collection: string, workspaceId: string, id: string): Op => ({ type: 'delete', collection, workspaceId, id });
