import { partitionsFrom, type Partition, type State } from './codec.ts';
import type { DeferredCollections } from './types.ts';

type Partitions = Map<string, Partition>;

/** Holds a pending collection's place in the order until it is loaded. */
const NOT_LOADED: Partitions = new Map();

/**
 * A State whose collections are parsed on first use (start-up and
 * reset parse only what is read). It is a Map, so the codec's functions work
 * on it unchanged: reading one collection (get, has) loads that one; anything
 * that walks the whole state (iteration, size) loads every pending one first.
 * Each collection keeps the place the source gives it, so an export or a
 * snapshot file lists collections in the same order as an eager load.
 */
export class LazyState extends Map<string, Partitions> implements State {
  #pending: Set<string> | null;
  readonly #source: DeferredCollections;
  readonly #version: number;
  readonly #makeError: (problem: string) => Error;

  constructor(source: DeferredCollections, version: number, makeError: (problem: string) => Error) {
    super();
    this.#source = source;
    this.#version = version;
    this.#makeError = makeError;
    for (const name of source.names) super.set(name, NOT_LOADED);
    this.#pending = source.names.length > 0 ? new Set(source.names) : null;
  }

  /** collections not parsed yet (diagnostics, tests) */
  get pendingNames(): string[] {
    return this.#pending ? [...this.#pending] : [];
  }

  override get(name: string): Partitions | undefined {
    if (this.#pending?.has(name)) this.#load(name);
    return super.get(name);
  }

  override has(name: string): boolean {
    if (this.#pending?.has(name)) this.#load(name);
    return super.has(name);
  }

  override set(name: string, partitions: Partitions): this {
    this.#pending?.delete(name);
    return super.set(name, partitions);
  }

  override delete(name: string): boolean {
    this.#pending?.delete(name);
    return super.delete(name);
  }

  override clear(): void {
    this.#pending = null;
    super.clear();
  }

  override get size(): number {
    this.#loadAll();
    return super.size;
  }

  override forEach(callback: (value: Partitions, key: string, map: Map<string, Partitions>) => void, thisArg?: unknown): void {
    this.#loadAll();
    super.forEach(callback, thisArg);
  }

  override entries(): MapIterator<[string, Partitions]> {
    this.#loadAll();
    return super.entries();
  }

  override keys(): MapIterator<string> {
    this.#loadAll();
    return super.keys();
  }

  override values(): MapIterator<Partitions> {
    this.#loadAll();
    return super.values();
  }

  override [Symbol.iterator](): MapIterator<[string, Partitions]> {
    return this.entries();
  }

  #loadAll(): void {
    if (this.#pending) for (const name of [...this.#pending]) this.#load(name);
  }

  #load(name: string): void {
    let byWorkspace: unknown;
    try {
      byWorkspace = this.#source.load(name);
    } catch (err) {
      // stays pending: every later read fails the same way instead of seeing an empty collection
      throw this.#makeError(`collections[${JSON.stringify(name)}] cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    }
    const partitions = partitionsFrom(name, byWorkspace, this.#version, this.#makeError);
    this.#pending!.delete(name);
    if (this.#pending!.size === 0) this.#pending = null;
    if (partitions.size > 0) super.set(name, partitions);
    else super.delete(name);
  }
}
