import type { Auth } from './auth.ts';
import type { WorkspaceRecord } from './tenancy.ts';
import { WORKSPACES } from './tenancy.ts';
import { workspaceNotFound } from './workspace-not-found.ts';
import { GLOBAL_PARTITION, type Store } from '../storage/types.ts';

/**
 * The workspace lookups that control routes share, the control plane's own and the
 * areas' (src/resources/<area>/control*.ts). In the core, below both (issue 41):
 * they take the parts of the context they read, so any layer may call them with ctx.
 */
export function listWorkspaces(ctx: { store: Store }): WorkspaceRecord[] {
  return [...WORKSPACES.in(ctx.store).list(GLOBAL_PARTITION)];
}

/** The workspace of an id, or the 404 that says when the id is a workspace's name (workspace-not-found.ts). */
export function requireWorkspace(ctx: { auth: Pick<Auth, 'workspace'>; store: Store }, id: string): WorkspaceRecord {
  const workspace = ctx.auth.workspace(id);
  if (!workspace) throw workspaceNotFound(ctx.store, id);
  return workspace;
}
