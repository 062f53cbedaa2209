import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { DETACHED_RECORD } from './detached-path.ts';

/**
 * A command's --url left to its default points at the sandbox `start --detach` started from
 * this folder, when exactly one of them runs: `sandbox start --detach --port 4123` then
 * `sandbox listen` talk to the same sandbox, as `sandbox stop` already does (docs/cli.md, "In
 * the background"). $SANDBOX_URL and --url still win; with none or several recorded, the default
 * address stays. Run by the program's preAction hook (./main.ts).
 */
export async function followThisFolder(action: Command): Promise<void> {
  if (action.getOptionValueSource('url') !== 'default' || process.env.SANDBOX_URL || !existsSync(DETACHED_RECORD)) return;
  const { detachedSandboxes } = await import('./detached-record.ts');
  const { running } = detachedSandboxes();
  if (running.length === 1) action.setOptionValueWithSource('url', running[0]!.url, 'default');
}
