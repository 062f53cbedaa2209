import type { Collection, Repository } from '../storage/collection.ts';
import type { Row, Store } from '../storage/types.ts';
import { GLOBAL_PARTITION } from '../storage/types.ts';
import { ApiError, badRequest, forbidden, unauthorized } from './errors.ts';
import type { Clock } from './clock.ts';
import { hasScope } from './scopes.ts';
import { hashSecret, hashesEqual } from './secrets.ts';
import { API_KEYS, WORKSPACES, type ApiKeyRecord, type WorkspaceRecord } from './tenancy.ts';
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
export interface OrgKeyLike {
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
  /** the organizations area's key collection (core knows no area, so it is handed in) */
  orgKeys: Collection<OrgKeyLike>;
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
  private readonly workspaces: Repository<WorkspaceRecord>;
  private readonly workspaceKeys: Repository<ApiKeyRecord>;
  private readonly orgKeys: Repository<OrgKeyLike>;

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly options: AuthOptions,
  ) {
    this.internalHash = options.internalApiKey ? hashSecret(options.internalApiKey) : null;
    this.workspaces = WORKSPACES.in(store);
    this.workspaceKeys = API_KEYS.in(store);
    this.orgKeys = options.orgKeys.in(store);
    this.rebuild();
    store.onChange((change) => {
      if (change.kind === 'replaced') return this.rebuild();
      for (const op of change.ops) {
        if (op.type === 'put' && this.isKeyCollection(op.collection)) this.indexRow(op.collection, op.workspaceId, op.row);
      }
    });
  }

  /** Resolves the principal or throws 401 (or 400/404 for internal-key misuse). */
  authenticate(authorization: string | undefined, workspaceHeader: string | undefined): Principal {
    const token = parseBearer(authorization);
    if (!token) throw authorization === undefined ? unauthorized().because('NO_AUTHORIZATION', 'no Authorization header; send Authorization: Bearer <key>') : unauthorized();
    const hash = hashSecret(token);
    if (this.internalHash && hashesEqual(hash, this.internalHash)) return this.internal(workspaceHeader);
    const ref = this.index.get(hash);
    if (!ref) throw unauthorized();
    if (ref.collection === API_KEYS.name) return this.workspaceKey(ref, hash);
    return this.orgKey(ref, hash);
  }

  requireScope(principal: Principal, scope: string): void {
    if (!hasScope(principal.scopes, scope)) throw forbidden();
  }

  workspace(id: string): WorkspaceRecord | undefined {
    return this.workspaces.get(GLOBAL_PARTITION, id);
  }

  private internal(workspaceHeader: string | undefined): Principal {
    if (!workspaceHeader) throw badRequest('MISSING_WORKSPACE_HEADER', 'Missing x-workspace-id header: internal service keys must name the workspace');
    const workspace = this.workspace(workspaceHeader);
    if (!workspace) throw new ApiError(404, { error: `Workspace ${workspaceHeader} not found` });
    return { kind: 'internal', workspace, keyId: 'internal', keyPrefix: 'internal', scopes: null, productIds: [], organizationId: null, ratePolicy: null };
  }

  private workspaceKey(ref: KeyRef, hash: string): Principal {
    const key = this.workspaceKeys.get(ref.workspaceId, ref.id);
    if (!key || !hashesEqual(hash, key.keyHash) || !this.stillValid(key.status, key.revokedAt, null, key.workspaceId)) throw unauthorized();
    const workspace = this.workspace(key.workspaceId);
    if (!workspace) throw unauthorized();
    return { kind: 'workspace', workspace, keyId: key.id, keyPrefix: key.keyPrefix, scopes: key.scopes, productIds: [], organizationId: null, ratePolicy: null };
  }

  private orgKey(ref: KeyRef, hash: string): Principal {
    const key = this.orgKeys.get(ref.workspaceId, ref.id);
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
    for (const keys of [this.workspaceKeys, this.orgKeys]) {
      for (const workspaceId of keys.partitions()) {
        for (const row of keys.list(workspaceId)) this.index.set(row.keyHash, { collection: keys.collection.name, workspaceId, id: row.id });
      }
    }
  }

  /** a key written by a commit (a row of either key collection, seen on the change feed) */
  private indexRow(collection: string, workspaceId: string, row: Row): void {
    if (typeof row.keyHash === 'string') this.index.set(row.keyHash, { collection, workspaceId, id: row.id });
  }

  private isKeyCollection(collection: string): boolean {
    return collection === API_KEYS.name || collection === this.orgKeys.collection.name;
  }
}

function parseBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
