import type { Auth } from './auth.ts';
import type { WorkspaceRecord } from './tenancy.ts';
import { WORKSPACES } from './tenancy.ts';
import { workspaceNotFound } from './workspace-not-found.ts';
import { defaultWorkspaceOrRule } from './default-workspace.ts';
import { GLOBAL_PARTITION, type Store } from '../storage/index.ts';

/**
 * The workspace lookups that control routes share, the control plane's own and the
 * areas' (src/resources/<area>/control*.ts). In the core, below both (docs/architecture.md, "Layers"):
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

/** Every workspace, as the default workspace's rule reads them (./default-workspace.ts). */
export function defaultCandidates(ctx: { store: Store; workspaces: { isCreated(id: string): boolean } }) {
  return listWorkspaces(ctx).map((record) => ({ record, id: record.id, name: record.name, mode: record.mode, created: ctx.workspaces.isCreated(record.id) }));
}

/**
 * The sandbox's default workspace (./default-workspace.ts) among the workspaces it holds now: the
 * one its `defaultWorkspace` option names, else the rule's. A start refuses an option that names
 * no workspace (src/assembly/default-workspace.ts); should the workspace it named go later (a created one deleted, a
 * state import without it), the rule decides again. Undefined when the sandbox holds no workspace.
 */
export function defaultWorkspaceOf(ctx: {
  store: Store;
  workspaces: { isCreated(id: string): boolean };
  options: { defaultWorkspace?: string | undefined };
}): WorkspaceRecord | undefined {
  return defaultWorkspaceOrRule(defaultCandidates(ctx), ctx.options.defaultWorkspace)?.record;
}
