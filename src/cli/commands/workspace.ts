import type { Command } from 'commander';
import { controlCommand } from '../control.ts';
import { durationOptionHint, group, onUnknownOption } from './options.ts';

/** `sandbox workspace create|list|delete|reset|advance`: workspaces on demand. */
export function workspaceCommand(program: Command): void {
  const workspace = group(program, 'workspace', 'workspaces on demand, one per parallel test worker', 'workspace create --json');
  controlCommand(workspace, 'create', 'create a workspace from a fixture workspace; its keys are printed once', [
    'workspace create',
    'workspace create --template "Aurora Tours" --name worker-1 --json',
  ])
    .option('--template <id|name>', 'fixture workspace to copy (default: the sandbox-mode one)')
    .option('--mode <mode>', "live or sandbox (default: the template's)")
    .option('--name <name>', 'a name for it')
    .option('--rate-limits <mode>', "enforce (429 as documented) or report (counted, never refused: a test worker on a manual clock); default: the sandbox's")
    .action(async (opts) => (await import('../workspace.ts')).runWorkspaceCreate(opts));
  controlCommand(workspace, 'list', 'list workspaces; created ones are marked', ['workspace list --json'], { isDefault: true }).action(async (opts) =>
    (await import('../workspace.ts')).runWorkspaceList(opts),
  );
  controlCommand(workspace, 'delete', 'delete a created workspace and everything in it', ['workspace delete wksp_...'])
    .argument('<id|name>', 'workspace')
    .action(async (given: string, opts) => (await import('../workspace.ts')).runWorkspaceDelete(given, opts));
  controlCommand(workspace, 'reset', 'put one workspace back to its template', ['workspace reset wksp_...'])
    .argument('<id|name>', 'workspace')
    .action(async (given: string, opts) => (await import('../workspace.ts')).runWorkspaceReset(given, opts));
  onUnknownOption(controlCommand(workspace, 'advance', "move one workspace's clock alone", ['workspace advance wksp_... 10m']), durationOptionHint)
    .argument('<id|name>', 'workspace')
    .argument('<duration>', '90s, 5m, 2h, 1d')
    .action(async (given: string, duration: string, opts) => (await import('../workspace.ts')).runWorkspaceAdvance(given, duration, opts));
}
