import { z } from 'zod';

/**
 * Phone and e-mail verification challenges (API description, "Verification").
 * The stored record is "not shown" and inferred. The sandbox keeps the clear
 * `code` next to its hash so the control plane can reveal it to tests; the
 * public API never returns either.
 */
/** superseded: a resend replaced this code; failed: too many wrong attempts */
export const VERIFICATION_STATUSES = ['pending', 'verified', 'expired', 'failed', 'superseded'] as const;

export const VerificationSchema = z
  .object({
    id: z.string().describe('shape ver_<uuid>'),
    channel: z.enum(['sms', 'email']),
    target: z.string().min(1).describe('E.164 phone number or e-mail address'),
    codeHash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe('SHA-256 of the code, hex'),
    code: z
      .string()
      .regex(/^\d{6}$/)
      .describe('sandbox only: the clear code, for the control plane'),
    status: z.enum(VERIFICATION_STATUSES),
    attempts: z.number().int().min(0),
    expiresAt: z.iso.datetime(),
    createdAt: z.iso.datetime(),
  })
  .meta({ 'x-sandbox-inferred': true });
export type Verification = z.infer<typeof VerificationSchema>;
