import { notFound, conflict } from '../core/errors.ts';
import { defaultWorkspaceOf, requireWorkspace } from '../core/workspace-lookup.ts';
import { newId } from '../core/ids.ts';
import { hashSecret, randomToken } from '../core/secrets.ts';
import type { ApiKeyRecord, KeyView, WorkspaceRecord } from '../core/tenancy.ts';
import type { SandboxContext } from '../context.ts';
import { GLOBAL_PARTITION, type Row } from '../storage/index.ts';
import { API_KEYS } from '../core/tenancy.ts';

/**
 * Workspace keys and workspace views for the control plane. Real workspace keys
 * are made in workspace settings (API description, "Authentication" 7); in the
 * sandbox that is `POST /__sandbox/workspaces/:id/keys`.
 */
export const KEY_PREFIX_LENGTH = 16;

/** `defaultId`: the default workspace's id, when the caller has it already (a listing reads it once). */
export function workspaceView(ctx: SandboxContext, workspace: WorkspaceRecord, defaultId = defaultWorkspaceOf(ctx)?.id) {
  const plain = new Map<string, string>();
  for (const fw of ctx.fixtureWorkspaces()) for (const k of fw.keys) plain.set(k.id, k.key);
  const keys: KeyView[] = API_KEYS.in(ctx.store)
    .list(GLOBAL_PARTITION)
    .filter((k) => k.workspaceId === workspace.id)
    .map((k) => ({ id: k.id, name: k.name, key: plain.get(k.id) ?? null, keyPrefix: k.keyPrefix, scopes: k.scopes, status: k.status }));
  const overlay = ctx.workspaces.overlay(workspace.id);
  // so that `fault add` can say when the tier's 429s will mix with a rule's answers
  const rateLimits = workspace.rateLimits ?? (ctx.options.enforceRateLimits ? 'enforce' : 'report');
  return {
    id: workspace.id,
    name: workspace.name,
    mode: workspace.mode,
    rateLimits,
    created: overlay !== undefined,
    templateId: overlay?.templateId ?? null,
    default: workspace.id === defaultId,
    keys,
  };
}

export async function createWorkspaceKey(ctx: SandboxContext, workspaceId: string, input: { name?: string | undefined; scopes?: string[] | null | undefined }) {
  const workspace = requireWorkspace(ctx, workspaceId);
  const key = `tcs_${workspace.mode === 'live' ? 'live' : 'test'}_${randomToken(32)}`;
  const record: ApiKeyRecord = {
    id: newId(API_KEYS),
    workspaceId: workspace.id,
    name: input.name ?? 'Sandbox key',
    keyPrefix: key.slice(0, KEY_PREFIX_LENGTH),
    keyHash: hashSecret(key),
    scopes: input.scopes ?? null,
    status: 'active',
    createdAt: ctx.clock.iso(),
    revokedAt: null,
    lastUsedAt: null,
    fixture: false,
  };
  await API_KEYS.in(ctx.store).put(GLOBAL_PARTITION, record);
  const { keyHash: _hidden, fixture: _fixture, ...visible } = record;
  return { ...visible, key };
}

/** Revocation applies to the very next request ("Authentication" 9) and cannot be undone. */
export async function revokeWorkspaceKey(ctx: SandboxContext, keyId: string) {
  const key = API_KEYS.in(ctx.store).get(GLOBAL_PARTITION, keyId);
  if (!key) throw notFound(`Key ${keyId}`);
  if (key.status === 'revoked') throw conflict('KEY_ALREADY_REVOKED', `Key ${keyId} is already revoked`);
  const revokedAt = ctx.clock.iso();
  const revoked: ApiKeyRecord = { ...key, status: 'revoked', revokedAt };
  await ctx.store.commit([API_KEYS.putOp(GLOBAL_PARTITION, revoked)]);
  return { id: revoked.id, workspaceId: revoked.workspaceId, status: 'revoked' as const, revokedAt };
}

/** Every record of a workspace, keyed by collection (sandbox bookkeeping left out). */
export function exportWorkspace(ctx: SandboxContext, workspaceId: string): Record<string, Row[]> {
  requireWorkspace(ctx, workspaceId);
  const out: Record<string, Row[]> = {};
  for (const collection of ctx.collections.all) {
    if (collection.internal) continue;
    out[collection.name] = ctx.store.list(collection.name, workspaceId).map(stripSecrets);
  }
  return out;
}

function stripSecrets(row: Row): Row {
  if (!('keyHash' in row) && !('codeHash' in row)) return row;
  const { keyHash: _k, codeHash: _c, ...rest } = row as Row & { keyHash?: string; codeHash?: string };
  return rest as Row;
}
