import type { Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { group } from './options.ts';

/** `sandbox keys list|create|revoke`: workspace API keys of a running sandbox. */
export function keysCommand(program: Command): void {
  const keys = group(program, 'keys', 'workspace API keys of a running sandbox', 'keys create --workspace "Aurora Tours" --scopes products:read');
  withWorkspace(
    controlCommand(keys, 'list', 'list the keys of every workspace (or of one)', ['keys list --workspace "Aurora Tours"'], { isDefault: true }),
    'every workspace',
  ).action(async (opts) => (await import('../keys.ts')).runKeysList(opts));
  withWorkspace(
    controlCommand(keys, 'create', 'create a workspace key; the key is printed once', ['keys create --name CI --scopes products:read,bookings:read']),
  )
    .option('--name <name>', 'a label for the key')
    .option('--scopes <list>', 'comma-separated scopes (default: full access)')
    .action(async (opts) => (await import('../keys.ts')).runKeysCreate(opts));
  controlCommand(keys, 'revoke', 'revoke a workspace key (the next request with it gets 401)', ['keys revoke wkey_...', 'keys revoke tcs_test_borealis_p'])
    .argument('<key>', "the key's id, its prefix (as listed) or the key itself")
    .action(async (id: string, opts) => (await import('../keys.ts')).runKeysRevoke(id, opts));
}
