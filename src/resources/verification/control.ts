import type { z } from 'zod';
import type { SandboxContext } from '../../context.ts';
import type { ZodApp } from '../types.ts';
import { serve } from '../../http/route-table/serve.ts';
import { VERIFICATION_CONTROL_ROUTES, type VerificationViewSchema } from './control-contract.ts';
import { VERIFICATIONS } from './collections.ts';

/**
 * GET /__sandbox/verifications?target=&channel=&workspaceId=: the codes the
 * sandbox "sent", newest first, so tests and people can finish a verification
 * (the public API never returns a code). Documented in docs/areas.md.
 */
export function registerVerificationControl(app: ZodApp, ctx: SandboxContext): void {
  serve(app, VERIFICATION_CONTROL_ROUTES.verifications, async (request) => {
    const { target, channel, workspaceId, limit } = request.query;
    // an unencoded `+` in a query string arrives as a space
    const wanted = target?.includes('@') ? target.toLowerCase() : target?.replace(/^ (?=\d)/, '+');
    const rows: z.infer<typeof VerificationViewSchema>[] = [];
    for (const ws of VERIFICATIONS.in(ctx.store).partitions()) {
      if (workspaceId !== undefined && ws !== workspaceId) continue;
      for (const v of VERIFICATIONS.in(ctx.store).list(ws)) {
        if ((wanted !== undefined && v.target !== wanted) || (channel !== undefined && v.channel !== channel)) continue;
        const { codeHash: _hash, ...shown } = v;
        rows.push({ ...shown, workspaceId: ws });
      }
    }
    rows.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
    return rows.slice(0, limit);
  });
}
