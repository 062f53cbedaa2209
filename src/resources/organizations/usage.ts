import type { SandboxContext } from '../../context.ts';
import type { BackgroundService } from '../../context.ts';
import type { Op } from '../../storage/types.ts';
import { ORG_API_KEYS } from './collections.ts';

/**
 * Persists organization keys' lastUsedAt lazily: auth records each use in
 * memory (Auth.lastUsed), and this writes the changed values once a minute on
 * the sandbox clock and at stop, so no request ever waits on a disk write.
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
    let cancel = () => {};
    const tick = async () => {
      cancel = ctx.clock.schedule(ctx.clock.now() + FLUSH_INTERVAL_MS, tick, undefined, USAGE_FLUSH);
      await flushKeyUsage(ctx);
    };
    cancel = ctx.clock.schedule(ctx.clock.now() + FLUSH_INTERVAL_MS, tick, undefined, USAGE_FLUSH);
    return {
      async stop() {
        cancel();
        await flushKeyUsage(ctx);
      },
    };
  },
};
