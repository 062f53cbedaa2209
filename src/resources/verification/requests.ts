import { z } from 'zod';
import { warning, type SandboxWarning } from '../../core/warnings.ts';

/**
 * Verification bodies (API description, "Verification"). Phones are E.164 with
 * the leading plus; codes are 6 digits ("Limits"). E-mail start and the SMS
 * confirm endpoint are "not shown" and mirror their documented siblings.
 */
export const E164 = /^\+[1-9]\d{6,14}$/;
/** "+44 20 7946 0958", "+1 (415) 555-0123": the separators people write, dropped. */
export const phoneDigits = (phone: string): string => phone.replace(/[\s().-]/g, '');
// "international format with leading plus": E.164 is the sandbox's reading, so separators are
// dropped with an INFERRED_LIMIT warning (phoneWarnings), refused under --strict
const phone = z
  .string()
  .trim()
  .max(40)
  .refine((p) => E164.test(phoneDigits(p)), 'phone must be in international format with a leading plus, e.g. +14155550123');

/** A phone written with separators: stored and sent to as its digits, with a warning. */
export const phoneWarnings = (body: { phone: string }): SandboxWarning[] =>
  body.phone === phoneDigits(body.phone)
    ? []
    : [
        warning(
          'INFERRED_LIMIT',
          `body.phone "${body.phone}" read as ${phoneDigits(body.phone)}: the sandbox infers E.164 without separators (refused under --strict)`,
        ),
      ];
const email = z
  .email('email must be an e-mail address')
  .max(254)
  .transform((e) => e.toLowerCase());
const code = z.string().regex(/^\d{6}$/, 'code must be the 6-digit code that was sent');

export const SmsStartBodySchema = z.object({ phone });
export const EmailStartBodySchema = z.object({ email });
export const SmsConfirmBodySchema = z.object({ phone, code });
export const EmailConfirmBodySchema = z.object({ email, code });

export const StartResponseSchema = z.object({ ok: z.literal(true), expiresAt: z.iso.datetime() }).meta({ id: 'VerificationStarted' });
export const ConfirmResponseSchema = z.object({ ok: z.literal(true) }).meta({ id: 'VerificationConfirmed' });

/** Failures of a code or a target: `{error, code}` with a machine-readable code (docs/areas.md). */
export const VERIFICATION_ERROR_CODES = ['INVALID_CODE', 'CODE_EXPIRED', 'TOO_MANY_ATTEMPTS', 'INVALID_NUMBER', 'UNDELIVERABLE'] as const;
export const VerificationErrorSchema = z.object({ error: z.string(), code: z.enum(VERIFICATION_ERROR_CODES) }).meta({ id: 'VerificationError' });
