import type { Store } from '../storage/types.ts';
import { GLOBAL_PARTITION } from '../storage/types.ts';
import { COLLECTIONS } from './collections.ts';
import { ApiError, badRequest, forbidden, unauthorized } from './errors.ts';
import type { Clock } from './clock.ts';
import { hasScope } from './scopes.ts';
import { hashSecret, hashesEqual } from './secrets.ts';
import type { ApiKeyRecord, WorkspaceRecord } from './tenancy.ts';
import type { RatePolicy } from './rate-limit.ts';

/**
 * Bearer key -> principal (API description, "Authentication").
 * - workspace keys: the key's workspace, its optional scopes;
 * - organization keys (`org_<prefix>_<secret>`): act in the issuing workspace,
 *   limited to their scopes, products and own rate policy;
 * - the internal service key plus `x-workspace-id`: any workspace, all scopes.
 * Keys are looked up by the SHA-256 of the bearer and the stored hash is then
 * compared in constant time; no clear secret is ever stored.
 */
export interface Principal {
  kind: 'workspace' | 'organization' | 'internal';
  workspace: WorkspaceRecord;
  keyId: string;
  keyPrefix: string;
  /** null = all scopes */
  scopes: readonly string[] | null;
  /** organization keys only: empty = all products */
  productIds: readonly string[];
  organizationId: string | null;
  /** extra bucket on top of the workspace limit (organization keys) */
  ratePolicy: RatePolicy | null;
}

type KeyRef = { collection: string; workspaceId: string; id: string };

/** Shape of stored organization keys that auth relies on (full schema lives with the resource). */
interface OrgKeyLike {
  id: string;
  organizationId: string;
  issuedByWorkspaceId: string;
  keyPrefix: string;
  keyHash: string;
  scopes: string[];
  productIds: string[];
  status: 'active' | 'revoked';
  expiresAt: string | null;
  revokedAt: string | null;
  rateLimitPolicy: { rps: number; rpm: number; burst: number };
}

export interface AuthOptions {
  internalApiKey?: string;
  /** emulated edge-cache lag: a revoked/expired key keeps working this long */
  revocationLagMs: number;
}

export class Auth {
  private index = new Map<string, KeyRef>();
  /**
   * Organization key id -> time of its last authenticated request. Kept in
   * memory so a request never writes to disk; the organizations area persists
   * it lazily (src/resources/organizations/usage.ts) and merges it into listings.
   */
  readonly lastUsed = new Map<string, string>();
  private readonly internalHash: string | null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: AuthOptions,
  ) {
    this.internalHash = options.internalApiKey ? hashSecret(options.internalApiKey) : null;
    this.rebuild();
    store.onChange((change) => {
      if (change.kind === 'replaced') return this.rebuild();
      for (const op of change.ops) {
        if (op.type === 'put' && isKeyCollection(op.collection)) this.indexRow(op.collection, op.workspaceId, op.row);
      }
    });
  }

  /** Resolves the principal or throws 401 (or 400/404 for internal-key misuse). */
  authenticate(authorization: string | undefined, workspaceHeader: string | undefined): Principal {
    const token = parseBearer(authorization);
    if (!token) throw unauthorized();
    const hash = hashSecret(token);
    if (this.internalHash && hashesEqual(hash, this.internalHash)) return this.internal(workspaceHeader);
    const ref = this.index.get(hash);
    if (!ref) throw unauthorized();
    if (ref.collection === COLLECTIONS.apiKeys) return this.workspaceKey(ref, hash);
    return this.orgKey(ref, hash);
  }

  requireScope(principal: Principal, scope: string): void {
    if (!hasScope(principal.scopes, scope)) throw forbidden();
  }

  workspace(id: string): WorkspaceRecord | undefined {
    return this.store.get<WorkspaceRecord & { id: string }>(COLLECTIONS.workspaces, GLOBAL_PARTITION, id);
  }

  private internal(workspaceHeader: string | undefined): Principal {
    if (!workspaceHeader) throw badRequest('MISSING_WORKSPACE_HEADER', 'Missing x-workspace-id header: internal service keys must name the workspace');
    const workspace = this.workspace(workspaceHeader);
    if (!workspace) throw new ApiError(404, { error: `Workspace ${workspaceHeader} not found` });
    return { kind: 'internal', workspace, keyId: 'internal', keyPrefix: 'internal', scopes: null, productIds: [], organizationId: null, ratePolicy: null };
  }

  private workspaceKey(ref: KeyRef, hash: string): Principal {
    const key = this.store.get<ApiKeyRecord & { id: string }>(ref.collection, ref.workspaceId, ref.id);
    if (!key || !hashesEqual(hash, key.keyHash) || !this.stillValid(key.status, key.revokedAt, null, key.workspaceId)) throw unauthorized();
    const workspace = this.workspace(key.workspaceId);
    if (!workspace) throw unauthorized();
    return { kind: 'workspace', workspace, keyId: key.id, keyPrefix: key.keyPrefix, scopes: key.scopes, productIds: [], organizationId: null, ratePolicy: null };
  }

  private orgKey(ref: KeyRef, hash: string): Principal {
    const key = this.store.get<OrgKeyLike & { id: string }>(ref.collection, ref.workspaceId, ref.id);
    if (!key || !hashesEqual(hash, key.keyHash) || !this.stillValid(key.status, key.revokedAt, key.expiresAt, key.issuedByWorkspaceId)) throw unauthorized();
    const workspace = this.workspace(key.issuedByWorkspaceId);
    if (!workspace) throw unauthorized();
    this.lastUsed.set(key.id, this.clock.isoIn(key.issuedByWorkspaceId));
    const { rps, rpm, burst } = key.rateLimitPolicy;
    return {
      kind: 'organization',
      workspace,
      keyId: key.id,
      keyPrefix: `org_${key.keyPrefix}`,
      scopes: key.scopes,
      productIds: key.productIds,
      organizationId: key.organizationId,
      ratePolicy: { perMinute: rpm, burst, perSecond: rps },
    };
  }

  /** Revocation is immediate unless the edge-cache lag emulation is switched on; expiry reads the key's workspace clock. */
  private stillValid(status: string, revokedAt: string | null, expiresAt: string | null, workspaceId: string): boolean {
    const now = this.clock.nowIn(workspaceId);
    const lag = this.options.revocationLagMs;
    if (status !== 'active' && !(revokedAt && Date.parse(revokedAt) + lag > now)) return false;
    if (expiresAt && Date.parse(expiresAt) + lag <= now) return false;
    return true;
  }

  private rebuild(): void {
    this.index.clear();
    this.lastUsed.clear();
    for (const collection of [COLLECTIONS.apiKeys, COLLECTIONS.orgApiKeys]) {
      for (const workspaceId of this.store.partitions(collection)) {
        for (const row of this.store.list(collection, workspaceId)) this.indexRow(collection, workspaceId, row);
      }
    }
  }

  private indexRow(collection: string, workspaceId: string, row: { id: string } & Record<string, unknown>): void {
    if (typeof row.keyHash === 'string') this.index.set(row.keyHash, { collection, workspaceId, id: row.id });
  }
}

const isKeyCollection = (c: string) => c === COLLECTIONS.apiKeys || c === COLLECTIONS.orgApiKeys;

function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
