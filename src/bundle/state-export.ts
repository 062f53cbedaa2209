import type { SandboxContext } from '../context.ts';
import { OverlayStore } from '../storage/overlay-store.ts';
import { type Collections, type Store, SCHEMA_VERSION } from '../storage/index.ts';
import { rowsOf, type StateTable, tableOf } from './state-table.ts';

/** A bundle's state: every collection's partitions as tables (./state-table.ts), in GET /__sandbox/state's nesting. */
export interface BundleState {
  schemaVersion: number;
  collections: Record<string, Record<string, StateTable>>;
}

/**
 * The whole state as the database file holds it: the engine's partitions, the templates' `~base:`
 * ones and created workspaces' own rows and deleted-row markers included, as an import takes it back.
 * Read row by row from the engine (a packed partition a page at a time), not through an export,
 * which would write all of it as JSON and parse it again (1.4 s of the bound of 1 s for 10,000
 * bookings, docs/benchmarks.md).
 */
export function exportState(ctx: Pick<SandboxContext, 'store' | 'collections'>): BundleState {
  const engine: Store = ctx.store instanceof OverlayStore ? ctx.store.inner : ctx.store;
  const collections: BundleState['collections'] = {};
  for (const name of ctx.collections.names) {
    const partitions = engine.partitions(name);
    if (partitions.length === 0) continue;
    const tables: Record<string, StateTable> = (collections[name] = {});
    for (const partition of partitions) tables[partition] = tableOf(engine.scan(name, partition));
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
