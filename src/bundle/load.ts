import type { SandboxContext } from '../context.ts';
import type { FaultRule } from '../core/faults.ts';
import type { Bundle } from './schema.ts';
import { stateRows } from './state-export.ts';
import { freshSecrets } from './state-secrets.ts';

export interface LoadedBundle {
  /** redacted secrets given fresh values (webhook subscriptions' signing secrets) */
  freshSecrets: number;
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
  await ctx.importState(rows);
  return { freshSecrets: fresh };
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
