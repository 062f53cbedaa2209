import { z } from 'zod';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { VERIFICATION_STATUSES } from '../resources/verification/schemas.ts';
import { VERIFICATIONS } from '../resources/verification/collections.ts';

/**
 * GET /__sandbox/verifications?target=&channel=&workspaceId=: the codes the
 * sandbox "sent", newest first, so tests and people can finish a verification
 * (the public API never returns a code). Documented in docs/areas.md.
 */
const VerificationViewSchema = z.object({
  id: z.string(),
  workspaceId: z.string(),
  channel: z.enum(['sms', 'email']),
  target: z.string(),
  code: z.string(),
  status: z.enum(VERIFICATION_STATUSES),
  attempts: z.number().int(),
  expiresAt: z.string(),
  createdAt: z.string(),
});

const QuerySchema = z.object({
  target: z.string().optional().describe('E.164 phone or e-mail address (e-mail compared case-insensitively)'),
  channel: z.enum(['sms', 'email']).optional(),
  workspaceId: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export function registerVerificationControl(app: ZodApp, ctx: SandboxContext): void {
  app.get('/verifications', {
    schema: { querystring: QuerySchema, response: { 200: z.object({ data: z.array(VerificationViewSchema) }) } },
  }, async (request) => {
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
    return { data: rows.slice(0, limit) };
  });
}
