import type { Auth, Principal } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import { conflict, notFound, validationError } from '../../core/errors.ts';
import { bareUuid, newId, parseId } from '../../core/ids.ts';
import { WORKSPACE_LIMITS } from '../../core/rate-limit.ts';
import { hasScope } from '../../core/scopes.ts';
import { hashSecret, randomToken } from '../../core/secrets.ts';
import type { Store } from '../../storage/index.ts';
import type { CreateOrgKeyBody } from './requests.ts';
import type { CreatedOrgKey, OrgApiKey, OrgApiKeyRecord, Organization, RateLimitPolicy } from './schemas.ts';
import { ORGANIZATIONS, ORG_API_KEYS } from './collections.ts';
import { PRODUCTS } from '../products/collections.ts';
import { organizationKeyNotAllowed, unknownRecord } from '../../core/reasons.ts';

/** `org_<prefix>_<secret>` (API description, "Organization API key": prefix 8, secret 32 characters). */
export const ORG_KEY_PREFIX_LENGTH = 8;
export const ORG_KEY_SECRET_LENGTH = 32;

/** Without a policy a key gets its workspace's own tier, so only the workspace limit binds. */
function defaultPolicy(mode: 'live' | 'sandbox'): RateLimitPolicy {
  const tier = WORKSPACE_LIMITS[mode];
  return { rps: tier.burst, rpm: tier.perMinute, burst: tier.burst };
}

export class OrgKeyService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly auth: Auth,
  ) {}

  async create(principal: Principal, rawOrgId: string, body: CreateOrgKeyBody): Promise<CreatedOrgKey> {
    const org = this.organization(principal, rawOrgId);
    const workspaceId = principal.workspace.id;
    this.checkGrant(principal, body);
    const productIds = this.checkProducts(workspaceId, body.productIds);
    const expiresAt = body.expiresAt === null ? null : new Date(body.expiresAt).toISOString();
    if (expiresAt !== null && Date.parse(expiresAt) <= this.clock.now()) {
      throw validationError(['body.expiresAt: must be in the future']);
    }
    const prefix = randomToken(ORG_KEY_PREFIX_LENGTH);
    const key = `org_${prefix}_${randomToken(ORG_KEY_SECRET_LENGTH)}`;
    const record: OrgApiKeyRecord = {
      id: newId(ORG_API_KEYS),
      organizationId: org.id,
      issuedByWorkspaceId: workspaceId,
      keyPrefix: prefix,
      keyHash: hashSecret(key),
      scopes: body.scopes,
      productIds,
      status: 'active',
      expiresAt,
      lastUsedAt: null,
      rateLimitPolicy: body.rateLimitPolicy ?? defaultPolicy(principal.workspace.mode),
      createdAt: this.clock.iso(),
      revokedAt: null,
      revokedBy: null,
    };
    await this.store.commit([ORG_API_KEYS.putOp(workspaceId, record)]);
    const { keyHash: _hash, lastUsedAt: _used, revokedAt: _at, revokedBy: _by, ...shown } = record;
    return { ...shown, productIds: productIds.map(bareUuid), key };
  }

  /** Oldest first; revoked keys stay listed with their revocation. */
  list(principal: Principal, rawOrgId: string): OrgApiKey[] {
    const org = this.organization(principal, rawOrgId);
    return ORG_API_KEYS.in(this.store)
      .list(principal.workspace.id)
      .filter((k) => k.organizationId === org.id)
      .map((k) => this.view(k));
  }

  /** Unknown key, or a key of another organization: 404. Already revoked: 409. */
  async revoke(principal: Principal, rawOrgId: string, rawKeyId: string) {
    const org = this.organization(principal, rawOrgId);
    const keyId = parseId(ORG_API_KEYS, 'keyId', rawKeyId);
    const workspaceId = principal.workspace.id;
    const key = ORG_API_KEYS.in(this.store).get(workspaceId, keyId);
    if (!key) throw unknownRecord('Organization API key', keyId, ORG_API_KEYS, 'keyId', workspaceId);
    if (key.organizationId !== org.id)
      throw notFound('Organization API key').because(
        'NOT_FOUND',
        `organization key ${keyId} is a key of another organization of this workspace, not of ${org.id}`,
      );
    if (key.status === 'revoked') throw conflict('KEY_ALREADY_REVOKED', `Organization API key ${keyId} is already revoked`);
    const revoked: OrgApiKeyRecord = {
      ...key,
      status: 'revoked',
      lastUsedAt: this.auth.lastUsed.get(key.id) ?? key.lastUsedAt,
      revokedAt: this.clock.iso(),
      revokedBy: principal.keyId,
    };
    await this.store.commit([ORG_API_KEYS.putOp(workspaceId, revoked)]);
    return { id: revoked.id, organizationId: revoked.organizationId, status: 'revoked' as const, revokedAt: revoked.revokedAt!, revokedBy: principal.keyId };
  }

  /**
   * Listing view: no key, no hash; lastUsedAt includes uses not yet persisted. The description
   * types lastUsedAt "string, present in listings" (and expiresAt, by contrast, "string or
   * null"), so a key never used reads its createdAt, not null (docs/api-notes.md, "Optional fields").
   */
  private view(k: OrgApiKeyRecord): OrgApiKey {
    const { keyHash: _hash, revokedAt, revokedBy, ...rest } = k;
    return {
      ...rest,
      productIds: k.productIds.map(bareUuid),
      lastUsedAt: this.auth.lastUsed.get(k.id) ?? k.lastUsedAt ?? k.createdAt,
      ...(revokedAt !== null ? { revokedAt } : {}),
      ...(revokedBy !== null ? { revokedBy } : {}),
    };
  }

  /**
   * The organization must belong to the caller's workspace. Partner keys cannot
   * manage keys at all (no key can mint or revoke its peers): 403.
   */
  private organization(principal: Principal, rawOrgId: string): Organization {
    if (principal.kind === 'organization') throw organizationKeyNotAllowed(principal.keyPrefix);
    const id = parseId(ORGANIZATIONS, 'id', rawOrgId);
    const org = ORGANIZATIONS.in(this.store).get(principal.workspace.id, id);
    if (!org) throw unknownRecord('Organization', id, ORGANIZATIONS, 'id', principal.workspace.id);
    return org;
  }

  /** A key never gets a scope its issuer lacks (no privilege escalation through partner keys). */
  private checkGrant(principal: Principal, body: CreateOrgKeyBody): void {
    const excess = body.scopes.map((scope, i) => ({ scope, i })).filter(({ scope }) => !hasScope(principal.scopes, scope));
    if (excess.length > 0) {
      throw validationError(excess.map(({ scope, i }) => `body.scopes.${i}: the issuing key does not hold scope "${scope}"`));
    }
  }

  /** Product ids must name products of this workspace; they are stored in the prefixed form. */
  private checkProducts(workspaceId: string, raw: readonly string[]): string[] {
    const ids = [...new Set(raw.map((value, i) => parseId(PRODUCTS, `productIds.${i}`, value)))];
    const unknown = ids.filter((id) => !PRODUCTS.in(this.store).get(workspaceId, id));
    if (unknown.length > 0) throw validationError(unknown.map((id) => `body.productIds: unknown product ${id}`));
    return ids;
  }
}
