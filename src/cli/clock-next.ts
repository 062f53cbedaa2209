import { dim } from './output.ts';
import { plural } from './format.ts';
import { controlClient, report, resolveWorkspace, type ScriptFlags } from './control.ts';
import { formatMs } from './time-span.ts';

/**
 * `sandbox clock advance --to-next [--workspace W]` (issue 38): one step to what
 * is due next (POST /__sandbox/clock/advance-to-next), so a script reaches each
 * webhook retry without working out the schedule and its jitter.
 */
export async function runClockAdvanceToNext(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspace = flags.workspace === undefined ? undefined : await resolveWorkspace(client, flags.workspace);
  const moved = await client.advanceClockToNext(workspace?.id);
  report(flags, moved, () => {
    const whose = workspace ? `${workspace.name}'s clock` : 'the sandbox clock';
    if (moved.ran.length === 0 && moved.movedMs === 0) return `Nothing is due on ${whose}: no timer is pending (${moved.now})`;
    return [
      `Advanced ${whose} ${formatMs(moved.movedMs)} to ${moved.now}; ran ${plural(moved.ran.length, 'timer')}:`,
      ...moved.ran.map((r) => `  ${dim(r.at)}  ${r.label}`),
      moved.next ? dim(`Next: ${moved.next.label} at ${moved.next.at}`) : dim('Nothing else is due'),
    ].join('\n');
  });
}
