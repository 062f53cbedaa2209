import type { SandboxContext } from '../context.ts';
import { requireWorkspace } from '../core/workspace-lookup.ts';

/**
 * POST /__sandbox/clock/advance-to-next (`sandbox clock advance --to-next`): moves a workspace's clock
 * (or, without one, the sandbox clock) exactly to its next due timer, and says
 * which timers ran. Periodic sweeps (idempotency purge, key-usage flush) are not
 * stopped at, since a script means "the next thing that happens to my data"; they
 * run on the way like on any advance. With no timer pending nothing moves.
 */
export async function advanceToNext(ctx: SandboxContext, workspace: string | undefined) {
  const { clock } = ctx;
  const workspaceId = workspace === undefined ? null : requireWorkspace(ctx, workspace).id;
  const next = clock.nextDue(workspaceId);
  const ms = next ? Math.max(0, next.dueMs - clock.nowIn(workspaceId)) : 0;
  const { ran } = next ? await clock.recordRuns(() => (workspaceId ? clock.advanceWorkspace(workspaceId, ms) : clock.advance(ms))) : { ran: [] };
  // a real clock does not wait for a delivery attempt a timer starts (src/webhooks/dispatcher.ts,
  // schedule), so the retry it schedules comes after the move: wait for it, or `next` misses it
  if (ran.length > 0 && clock.mode === 'real') await ctx.webhooks.settled();
  const state = workspaceId ? clock.stateOf(workspaceId) : clock.state();
  const after = clock.nextDue(workspaceId);
  return {
    mode: state.mode,
    now: state.now,
    nowMs: state.nowMs,
    pendingTimers: state.pendingTimers,
    advancedMs: state.advancedMs,
    workspaceId,
    movedMs: ms,
    ran: ran.map((r) => ({ label: r.label, workspaceId: r.workspaceId, at: new Date(r.atMs).toISOString() })),
    next: after ? { label: after.label, at: new Date(after.dueMs).toISOString() } : null,
  };
}
