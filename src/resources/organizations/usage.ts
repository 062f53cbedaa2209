import type { SandboxContext } from '../../context.ts';
import type { BackgroundService } from '../../context.ts';
import type { Op } from '../../storage/index.ts';
import { ORG_API_KEYS } from './collections.ts';

/**
 * Persists organization keys' lastUsedAt lazily: auth records each use in
 * memory (Auth.lastUsed), and this writes the changed values a minute on the
 * sandbox clock after the first use not yet written, and at stop, so no request
 * ever waits on a disk write. The flush is scheduled only while a use waits: a
 * flush every minute whatever happened made `clock advance 121d` fire 174,240
 * timers (0.4 s alone, 8-14 s in a busy test worker).
 */
export const FLUSH_INTERVAL_MS = 60_000;

export async function flushKeyUsage(ctx: SandboxContext): Promise<void> {
  const ops: Op[] = [];
  const written = new Map<string, string>();
  for (const workspaceId of ORG_API_KEYS.in(ctx.store).partitions()) {
    for (const key of ORG_API_KEYS.in(ctx.store).list(workspaceId)) {
      const used = ctx.auth.lastUsed.get(key.id);
      if (used === undefined) continue;
      written.set(key.id, used);
      if (used !== key.lastUsedAt) {
        ops.push(ORG_API_KEYS.putOp(workspaceId, { ...key, lastUsedAt: used }));
      }
    }
  }
  if (ops.length > 0) await ctx.store.commit(ops);
  // forget only what was written; a use recorded meanwhile waits for the next flush
  for (const [id, used] of written) if (ctx.auth.lastUsed.get(id) === used) ctx.auth.lastUsed.delete(id);
}

const USAGE_FLUSH = { label: 'organization key usage flush', housekeeping: true };

export const orgKeyUsageService: BackgroundService = {
  name: 'org-key-usage',
  start(ctx) {
    let cancel: (() => void) | null = null;
    const tick = async () => {
      cancel = null;
      await flushKeyUsage(ctx);
      // a use recorded while the flush was writing waits for the next one
      if (ctx.auth.lastUsed.size > 0) arm();
    };
    const arm = () => {
      // the global clock (null), not the workspace of the request whose use armed it
      cancel ??= ctx.clock.schedule(ctx.clock.now() + FLUSH_INTERVAL_MS, tick, null, USAGE_FLUSH);
    };
    ctx.auth.onKeyUse = arm;
    if (ctx.auth.lastUsed.size > 0) arm();
    return {
      async stop() {
        ctx.auth.onKeyUse = null;
        cancel?.();
        cancel = null;
        await flushKeyUsage(ctx);
      },
    };
  },
};
