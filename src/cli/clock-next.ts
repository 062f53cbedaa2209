import { dim } from './output.ts';
import { plural } from './format.ts';
import { controlClient, report, resolveWorkspace, type ScriptFlags } from './control.ts';
import { formatMs } from './time-span.ts';
import type { ControlClient } from '../control/client.ts';

type ToNext = Awaited<ReturnType<ControlClient['advanceClockToNext']>>;

/**
 * `sandbox clock advance --to-next [--workspace W]`: one step to what
 * is due next (POST /__sandbox/clock/advance-to-next), so a script reaches each
 * webhook retry without working out the schedule and its jitter.
 */
export async function runClockAdvanceToNext(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspace = flags.workspace === undefined ? undefined : await resolveWorkspace(client, flags.workspace);
  const moved = await client.advanceClockToNext(workspace?.id);
  report(flags, moved, () => describeToNext(moved, workspace?.name, dim));
}

/**
 * What a move to the next timer did, for people: the CLI prints it, MCP's advance_clock answers it
 * as `summary` beside the route's data. `workspaceName`: whose clock moved (none: the sandbox clock).
 */
export function describeToNext(moved: ToNext, workspaceName: string | undefined, paint: (text: string) => string = (text) => text): string {
  const whose = workspaceName !== undefined ? `${workspaceName}'s clock` : 'the sandbox clock';
  if (moved.ran.length === 0 && moved.movedMs === 0) return `Nothing is due on ${whose}: no timer is pending (${moved.now})`;
  return [
    `Advanced ${whose} ${formatMs(moved.movedMs)} to ${moved.now}; ran ${plural(moved.ran.length, 'timer')}:`,
    ...moved.ran.map((r) => `  ${paint(r.at)}  ${r.label}`),
    moved.next ? paint(`Next: ${moved.next.label} at ${moved.next.at}`) : paint('Nothing else is due'),
  ].join('\n');
}
