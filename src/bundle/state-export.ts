import type { SandboxContext } from '../context.ts';
import { OVERLAYS, OverlayStore } from '../storage/index.ts';
import { BASES } from '../workspaces/templates.ts';
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
export function exportState(ctx: StateSource): BundleState {
  return { schemaVersion: SCHEMA_VERSION, collections: Object.fromEntries(stateTables(ctx)) };
}

type StateSource = Pick<SandboxContext, 'store' | 'collections'>;

/**
 * The same, a collection at a time: a bundle written as it is read (./file.ts) compresses one
 * collection while the next is read. Each collection is read whole within one turn of the event
 * loop; between two, a sandbox that still takes writes may change (`sandbox exec` writes its
 * bundle once the command has exited; `bundle save` is meant for a sandbox at rest).
 */
export function* stateTables(ctx: StateSource): Generator<readonly [string, Record<string, StateTable>]> {
  const engine: Store = ctx.store instanceof OverlayStore ? ctx.store.inner : ctx.store;
  // the areas' collections, and the engine's own for workspaces on demand (as an import knows them: control/state-import.ts)
  for (const name of [...ctx.collections.names, OVERLAYS.name, BASES.name]) {
    const partitions = engine.partitions(name);
    if (partitions.length === 0) continue;
    const tables: Record<string, StateTable> = {};
    for (const partition of partitions) tables[partition] = tableOf(engine.scan(name, partition));
    yield [name, tables];
  }
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
