import type { Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { group } from './options.ts';

/** `sandbox ratelimit show|exhaust|mode`: inspect and provoke rate limits. */
export function ratelimitCommand(program: Command): void {
  const rate = group(program, 'ratelimit', 'inspect and provoke rate limits', 'ratelimit exhaust --workspace "Aurora Tours"');
  withWorkspace(
    controlCommand(rate, 'show', "show every rate-limit bucket (or one workspace's)", ['ratelimit show', 'ratelimit show --workspace wksp_...'], {
      isDefault: true,
    }),
    'every workspace',
  ).action(async (opts) => (await import('../ratelimit.ts')).runRateLimitShow(opts));
  withWorkspace(
    controlCommand(rate, 'exhaust', 'empty a bucket: the next request gets 429', ['ratelimit exhaust --key orgkey_...', 'ratelimit exhaust --window burst']),
  )
    .option('--key <key>', 'a key instead of a workspace: its id, prefix or the key itself')
    .option('--window <window>', 'burst or minute: empty only that window (default: both)')
    .action(async (opts) => (await import('../ratelimit.ts')).runRateLimitExhaust(opts));
  withWorkspace(controlCommand(rate, 'mode', "switch a workspace's limits", ['ratelimit mode sandbox --workspace "Aurora Tours"']))
    .argument('<mode>', 'live or sandbox')
    .action(async (mode: string, opts) => (await import('../ratelimit.ts')).runRateLimitMode(mode, opts));
}
