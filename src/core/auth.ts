import { GLOBAL_PARTITION, type Collection, type Repository, type Row, type Store } from '../storage/index.ts';
import { badRequest } from './errors.ts';
import type { Clock } from './clock.ts';
import { badAuthorization, keyExpired, keyRevoked, keyWorkspaceDeleted, missingScope, unknownKey, workspaceNotFound } from './reasons.ts';
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
  /** who revoked it (a wkey_ id, `internal`, the control plane), once revoked */
  revokedBy?: string | null;
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
  /** called after each use is recorded in lastUsed: the organizations area arms its flush then */
  onKeyUse: (() => void) | null = null;
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

  /**
   * Resolves the principal or throws 401 (or 400/404 for internal-key misuse),
   * each with its reason (src/core/reasons.ts).
   */
  authenticate(authorization: string | undefined, workspaceHeader: string | undefined): Principal {
    const token = parseBearer(authorization);
    if (!token) throw badAuthorization(authorization);
    const hash = hashSecret(token);
    if (this.internalHash && hashesEqual(hash, this.internalHash)) return this.internal(workspaceHeader);
    const ref = this.index.get(hash);
    if (!ref) throw unknownKey(token);
    if (ref.collection === API_KEYS.name) return this.workspaceKey(ref, hash, token);
    return this.orgKey(ref, hash, token);
  }

  /**
   * Whose key an Authorization header carries, whatever its scheme (`Token …`, none) or the key's
   * state (revoked, expired, its workspace deleted): the request log names them on a refused
   * request. Called only for requests that were not authenticated.
   */
  identify(authorization: string | undefined): { keyPrefix: string; workspaceId: string } | null {
    const token = /(\S+)\s*$/.exec(authorization ?? '')?.[1];
    const ref = token === undefined ? undefined : this.index.get(hashSecret(token));
    if (!ref) return null;
    if (ref.collection === API_KEYS.name) {
      const key = this.workspaceKeys.get(ref.workspaceId, ref.id);
      return key ? { keyPrefix: key.keyPrefix, workspaceId: key.workspaceId } : null;
    }
    const key = this.orgKeys.get(ref.workspaceId, ref.id);
    return key ? { keyPrefix: `org_${key.keyPrefix}`, workspaceId: key.issuedByWorkspaceId } : null;
  }

  /** 403 when the key lacks `scope`; the route (method, url pattern) only names it in the reason. */
  requireScope(principal: Principal, scope: string, method: string, url: string): void {
    if (!hasScope(principal.scopes, scope)) throw missingScope(scope, principal.keyPrefix, principal.scopes ?? [], method, url);
  }

  workspace(id: string): WorkspaceRecord | undefined {
    return this.workspaces.get(GLOBAL_PARTITION, id);
  }

  private internal(workspaceHeader: string | undefined): Principal {
    if (!workspaceHeader) throw badRequest('MISSING_WORKSPACE_HEADER', 'Missing x-workspace-id header: internal service keys must name the workspace');
    const workspace = this.workspace(workspaceHeader);
    if (!workspace) throw workspaceNotFound(workspaceHeader);
    return { kind: 'internal', workspace, keyId: 'internal', keyPrefix: 'internal', scopes: null, productIds: [], organizationId: null, ratePolicy: null };
  }

  private workspaceKey(ref: KeyRef, hash: string, token: string): Principal {
    const key = this.workspaceKeys.get(ref.workspaceId, ref.id);
    if (!key || !hashesEqual(hash, key.keyHash)) throw unknownKey(token);
    // workspace keys are revoked only by the control plane (DELETE /__sandbox/keys/:id), and never expire
    if (this.invalidity(key.status, key.revokedAt, null, key.workspaceId)) throw keyRevoked(key.keyPrefix, key.revokedAt, 'the control plane');
    const workspace = this.workspace(key.workspaceId);
    if (!workspace) throw keyWorkspaceDeleted(key.keyPrefix, key.workspaceId);
    return {
      kind: 'workspace',
      workspace,
      keyId: key.id,
      keyPrefix: key.keyPrefix,
      scopes: key.scopes,
      productIds: [],
      organizationId: null,
      ratePolicy: null,
    };
  }

  private orgKey(ref: KeyRef, hash: string, token: string): Principal {
    const key = this.orgKeys.get(ref.workspaceId, ref.id);
    if (!key || !hashesEqual(hash, key.keyHash)) throw unknownKey(token);
    const invalid = this.invalidity(key.status, key.revokedAt, key.expiresAt, key.issuedByWorkspaceId);
    if (invalid === 'revoked') throw keyRevoked(`org_${key.keyPrefix}`, key.revokedAt, key.revokedBy ?? null);
    if (invalid === 'expired') throw keyExpired(`org_${key.keyPrefix}`, key.expiresAt!, key.issuedByWorkspaceId, this.clock);
    const workspace = this.workspace(key.issuedByWorkspaceId);
    if (!workspace) throw keyWorkspaceDeleted(`org_${key.keyPrefix}`, key.issuedByWorkspaceId);
    this.lastUsed.set(key.id, this.clock.isoIn(key.issuedByWorkspaceId));
    this.onKeyUse?.();
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

  /**
   * Why a key no longer works, or null while it does. Revocation is immediate
   * unless the edge-cache lag emulation is switched on; expiry reads the key's workspace clock.
   */
  private invalidity(status: string, revokedAt: string | null, expiresAt: string | null, workspaceId: string): 'revoked' | 'expired' | null {
    const now = this.clock.nowIn(workspaceId);
    const lag = this.options.revocationLagMs;
    if (status !== 'active' && !(revokedAt && Date.parse(revokedAt) + lag > now)) return 'revoked';
    if (expiresAt && Date.parse(expiresAt) + lag <= now) return 'expired';
    return null;
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
