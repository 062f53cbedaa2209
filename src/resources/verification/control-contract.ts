import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';
import { VERIFICATION_STATUSES } from './schemas.ts';

/**
 * GET /__sandbox/verifications: the codes the sandbox "sent" (served by
 * ./control.ts; docs/areas.md).
 */
export const VerificationViewSchema = z.object({
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

export const VERIFICATION_CONTROL_ROUTES = defineRoutes({
  verifications: {
    method: 'GET',
    path: '/verifications',
    query: z.object({
      target: z.string().optional().describe('E.164 phone or e-mail address (e-mail compared case-insensitively)'),
      channel: z.enum(['sms', 'email']).optional(),
      workspaceId: z.string().optional(),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    }),
    data: z.array(VerificationViewSchema),
    summary: 'The verification codes the sandbox sent, newest first',
  },
});
