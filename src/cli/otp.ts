import type { VerificationSummary } from '../control/client.ts';
import { printJson } from './output.ts';
import { say, table } from './format.ts';
import { controlClient, type ScriptFlags } from './control.ts';

/**
 * `sandbox otp [target]`: the verification codes the sandbox "sent"
 * (GET /__sandbox/verifications), newest first, so a person or a script can
 * finish a phone or e-mail verification.
 */
export interface OtpFlags extends ScriptFlags {
  channel?: string;
  limit?: number;
}

export async function runOtp(target: string | undefined, flags: OtpFlags): Promise<void> {
  const client = await controlClient(flags);
  const codes = await client.verifications({
    ...(target !== undefined ? { target } : {}),
    // the server checks the channel and answers a 400 naming the ones there are
    ...(flags.channel !== undefined ? { channel: flags.channel as VerificationSummary['channel'] } : {}),
    limit: flags.limit ?? (target === undefined ? 10 : 5),
  });
  if (flags.json) return printJson(codes);
  if (codes.length === 0) return say(target === undefined ? 'No verification codes sent yet' : `No verification codes sent to ${target}`);
  say(
    table(
      ['CHANNEL', 'TARGET', 'CODE', 'STATUS', 'EXPIRES AT', 'SENT AT'],
      codes.map((c) => [c.channel, c.target, c.code, c.status, c.expiresAt, c.createdAt]),
    ),
  );
}
