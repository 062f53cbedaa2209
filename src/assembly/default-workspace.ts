import type { SandboxContext } from '../context.ts';
import { defaultWorkspace } from '../core/default-workspace.ts';
import { defaultCandidates } from '../core/workspace-lookup.ts';
import { SandboxError } from './sandbox-error.ts';

/**
 * The start's check of the `defaultWorkspace` option (`sandbox start --default-workspace`,
 * $SANDBOX_WORKSPACE): it must name one workspace of those the sandbox holds once seeded, by id or
 * name, as --workspace does. Else a SandboxError whose one line lists the workspaces there are.
 */
export function checkDefaultWorkspace(ctx: SandboxContext): void {
  const choice = ctx.options.defaultWorkspace;
  if (choice === undefined) return;
  try {
    defaultWorkspace(defaultCandidates(ctx), choice, 'it');
  } catch (err) {
    throw new SandboxError(`Cannot make "${choice}" the default workspace: ${(err as Error).message}`, {
      option: 'defaultWorkspace',
      text: (name) => `name one of them with ${name}`,
    });
  }
}
