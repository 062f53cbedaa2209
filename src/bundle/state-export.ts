import type { SandboxContext } from '../context.ts';
import { OVERLAYS, OverlayStore, type Collections, type Store, SCHEMA_VERSION } from '../storage/index.ts';
import { BASES } from '../workspaces/templates.ts';
import { type CollectionCopy, tablesOf } from './state-pieces.ts';
import { rowsOf, type StateTable } from './state-table.ts';

/** A bundle's state: every collection's partitions as tables (./state-table.ts), in GET /__sandbox/state's nesting. */
export interface BundleState {
  schemaVersion: number;
  /** each partition as its tables of up to 2,000 rows, in order (./state-pieces.ts) */
  collections: Record<string, Record<string, StateTable[]>>;
}

type StateSource = Pick<SandboxContext, 'store' | 'collections'>;

/**
 * The whole state as the database file holds it: the engine's partitions, the templates' `~base:`
 * ones and created workspaces' own rows and deleted-row markers included, as an import takes it
 * back. Copied from the engine in one turn of the event loop (a packed partition in O(pages)), not
 * through an export, which would write all of it as JSON and parse it again; read later.
 */
export function copyState(ctx: StateSource): CollectionCopy[] {
  const engine: Store = ctx.store instanceof OverlayStore ? ctx.store.inner : ctx.store;
  const out: CollectionCopy[] = [];
  // the areas' collections, and the engine's own for workspaces on demand (as an import knows them: control/state-import.ts)
  for (const name of [...ctx.collections.names, OVERLAYS.name, BASES.name]) {
    const partitions = engine.partitions(name);
    if (partitions.length === 0) continue;
    out.push({ name, partitions: partitions.map((partition) => [partition, engine.scan(name, partition, { detached: true })]) });
  }
  return out;
}

/** The whole state as tables, an object rather than text (collectBundle). */
export function exportState(ctx: StateSource): BundleState {
  const collections: BundleState['collections'] = {};
  for (const { name, partitions } of copyState(ctx)) {
    collections[name] = Object.fromEntries(partitions.map(([partition, rows]) => [partition, [...tablesOf(rows)]]));
  }
  return { schemaVersion: SCHEMA_VERSION, collections };
}

/** The rows again, as an import takes them (ctx.importState). */
export function stateRows(state: BundleState): Collections {
  const out: Collections = {};
  for (const [name, tables] of Object.entries(state.collections)) {
    const partitions: Collections[string] = (out[name] = {});
    for (const [partition, table] of Object.entries(tables)) partitions[partition] = rowsOf(table);
  }
  return out;
}
