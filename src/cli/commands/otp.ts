import type { Command } from 'commander';
import { controlCommand } from '../control.ts';
import { parseInteger } from './options.ts';

/** `sandbox otp [target]`: the verification codes the sandbox sent. */
export function otpCommand(program: Command): void {
  controlCommand(program, 'otp', 'show the latest verification codes the sandbox sent', ['otp +15551234567', 'otp ada@example.com --json'])
    .argument('[target]', 'phone (E.164) or e-mail')
    .option('--channel <channel>', 'sms or email')
    .option('--limit <n>', 'how many codes', parseInteger('--limit', 1, 100))
    .action(async (target: string | undefined, opts) => (await import('../otp.ts')).runOtp(target, opts));
}
