/**
 * The 404 of a workspace id that is not one: when the
 * value is a workspace's name, the reason gives the id to send instead, so a
 * script that passed a name learns why its target was refused.
 */
import { notFound, type ApiError } from './errors.ts';
import { WORKSPACES } from './tenancy.ts';
import { GLOBAL_PARTITION, type Store } from '../storage/index.ts';

export function workspaceNotFound(store: Store, given: string): ApiError {
  const lower = given.toLowerCase();
  const named = WORKSPACES.in(store)
    .list(GLOBAL_PARTITION)
    .filter((w) => w.name.toLowerCase() === lower);
  if (named.length === 1) {
    return notFound(`Workspace ${given}`).because(
      'WORKSPACE_NAME_NOT_ID',
      `"${given}" is the name of workspace ${named[0]!.id}: send its id (the CLI's --workspace takes either)`,
    );
  }
  return notFound(`Workspace ${given}`).because('NOT_FOUND', `no workspace has the id ${given}: GET /__sandbox/workspaces (sandbox workspace list) lists them`);
}
