import type { SandboxContext } from '../context.ts';
import type { FaultRule } from '../core/faults.ts';
import type { Collections } from '../storage/index.ts';
import type { Bundle } from './schema.ts';
import { stateRows } from './state-export.ts';
import { freshSecrets } from './state-secrets.ts';

export interface LoadedBundle {
  /** redacted secrets given fresh values (webhook subscriptions' signing secrets) */
  freshSecrets: number;
  /** rows this sandbox refused and left out, one line each (`collection row "id" (workspace …): why`) */
  leftOut: string[];
}

/**
 * Puts a bundle's state and clocks into a running sandbox: `sandbox start --from-bundle` (a live
 * sandbox, to run the failing test again) and, with the run's request log, fault rules and report
 * too, `sandbox open` (read-only, ./open.ts). The clock first, so that the services the import
 * wakes (webhook retries, gallery jobs) schedule on the bundle's time; the state through the same
 * checked import as PUT /__sandbox/state, each row against its collection's schema.
 */
export async function loadState(ctx: SandboxContext, bundle: Bundle): Promise<LoadedBundle> {
  const { clock } = bundle;
  ctx.clock.restore(
    { atMs: clock.nowMs },
    clock.workspaces.map((w) => [w.workspaceId, w.offsetMs] as const),
  );
  const rows = stateRows(bundle.state);
  const fresh = freshSecrets(rows);
  return { freshSecrets: fresh, leftOut: await importKeeping(ctx, rows) };
}

/**
 * The import, all or nothing as PUT /__sandbox/state is; when it refuses, the rows it would refuse
 * (a value redaction changed past its schema, a bundle from another version) are left out and the
 * rest imported: a bundle is evidence, and one odd row must not keep the rest from being read.
 */
async function importKeeping(ctx: SandboxContext, rows: Collections): Promise<string[]> {
  try {
    await ctx.importState(rows);
    return [];
  } catch (err) {
    const { importedCollection, isTombstoneRow, rowProblem } = await import('../control/state-import.ts');
    const leftOut: string[] = [];
    for (const [name, partitions] of Object.entries(rows)) {
      const collection = importedCollection(name, ctx.collections);
      if (typeof collection === 'string') {
        leftOut.push(collection);
        delete rows[name];
        continue;
      }
      for (const [partition, kept] of Object.entries(partitions)) {
        for (const [id, row] of Object.entries(kept)) {
          if (isTombstoneRow(id, row)) continue;
          const problem = rowProblem(collection.schema, name, id, row);
          if (problem === null) continue;
          leftOut.push(`${name} row ${JSON.stringify(id)} (workspace ${partition}): ${problem}`);
          delete kept[id];
        }
      }
    }
    if (leftOut.length === 0) throw err;
    await ctx.importState(rows);
    return leftOut;
  }
}

/**
 * What only a bundle opened read-only shows: the run's request log (its headers and bodies where
 * kept), its fault rules and its report, all as saved; from then on the log takes no new entry and
 * the report answers as saved, whatever is asked of the sandbox meanwhile.
 */
export function loadRunStory(ctx: SandboxContext, bundle: Bundle): void {
  ctx.requestLog.restore(bundle.requests.entries, bundle.requests.seen, true);
  ctx.faults.restore(bundle.faults as FaultRule[]);
  ctx.runReport.restore(bundle.report);
}
