import { newId } from '../core/ids.ts';
import { hashSecret, randomToken } from '../core/secrets.ts';
import { API_KEYS, type ApiKeyRecord, type WorkspaceMode } from '../core/tenancy.ts';

/**
 * The API keys a created workspace is born with (manager.ts, create): stored as
 * a hash and a prefix, like every key, and answered in the clear this once.
 */
const KEY_PREFIX_LENGTH = 16;

/** A key as its creator sees it, the only time its secret is shown. */
export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  keyPrefix: string;
  scopes: string[] | null;
  status: 'active';
}

/** A created workspace's keys: one with full access, one that may only read products (a least-privilege test). */
export function keysOfCreated(workspaceId: string, mode: WorkspaceMode, now: string): { record: ApiKeyRecord; view: CreatedKey }[] {
  return [newKey(workspaceId, mode, 'Full access', null, now), newKey(workspaceId, mode, 'Products read', ['products:read'], now)];
}

function newKey(workspaceId: string, mode: WorkspaceMode, name: string, scopes: string[] | null, now: string): { record: ApiKeyRecord; view: CreatedKey } {
  const key = `tcs_${mode === 'live' ? 'live' : 'test'}_${randomToken(32)}`;
  const record: ApiKeyRecord = {
    id: newId(API_KEYS),
    workspaceId,
    name,
    keyPrefix: key.slice(0, KEY_PREFIX_LENGTH),
    keyHash: hashSecret(key),
    scopes,
    status: 'active',
    createdAt: now,
    revokedAt: null,
    lastUsedAt: null,
    fixture: false,
  };
  const view: CreatedKey = { id: record.id, name, key, keyPrefix: record.keyPrefix, scopes, status: 'active' };
  return { record, view };
}
