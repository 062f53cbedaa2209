import type { Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { group, parseInteger } from './options.ts';

/** `sandbox org-keys list|create|revoke`: partner organization keys of a running sandbox. */
export function orgKeysCommand(program: Command): void {
  const orgKeys = group(
    program,
    'org-keys',
    'partner organization keys of a running sandbox',
    'org-keys create --scopes products:read --rps 2 --rpm 60 --burst 5',
  );
  withWorkspace(
    controlCommand(orgKeys, 'list', 'list organization keys (prefixes only)', ['org-keys list --json'], { isDefault: true }),
    'every workspace',
  ).action(async (opts) => (await import('../org-keys.ts')).runOrgKeysList(opts));
  withWorkspace(
    controlCommand(orgKeys, 'create', 'issue an organization key; the key is printed once', [
      'org-keys create --org nordic-trails-agency --scopes products:read --products prod_...',
    ]),
  )
    .option('--org <id|slug|name>', 'organization (default: the first of the workspace)')
    .option('--scopes <list>', 'comma-separated scopes (default: none)')
    .option('--products <ids>', 'comma-separated product ids the key is limited to (default: all)')
    .option('--expires-at <iso>', 'expiry, ISO 8601')
    .option('--rps <n>', 'requests per second', parseInteger('--rps', 1, 10_000))
    .option('--rpm <n>', 'requests per minute', parseInteger('--rpm', 1, 600_000))
    .option('--burst <n>', 'burst size', parseInteger('--burst', 1, 10_000))
    .action(async (opts) => (await import('../org-keys.ts')).runOrgKeysCreate(opts));
  controlCommand(orgKeys, 'revoke', 'revoke an organization key', ['org-keys revoke orgkey_...'])
    .argument('<key>', "the key's id, its prefix (as listed) or the key itself")
    .action(async (id: string, opts) => (await import('../org-keys.ts')).runOrgKeysRevoke(id, opts));
}
