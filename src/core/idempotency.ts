import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineCollection, type Op, type Repository, type Store } from '../storage/index.ts';
import type { Clock } from './clock.ts';
import { badRequest, conflict, unprocessable } from './errors.ts';

/**
 * `Idempotency-Key` on POST (API description, "Common request rules"). Retention
 * and conflict rules are not shown; the sandbox follows the common industry
 * design (docs/api-notes.md):
 * - same key, same method, path and body: the first status and body are
 *   replayed with `Idempotent-Replayed: true`;
 * - same key, different request: 422;
 * - same key while the first request is still running: 409;
 * - keys are kept 24 h on the sandbox clock, per workspace, and at most
 *   IDEMPOTENCY_MAX_KEYS per workspace (the oldest go first), so memory stays
 *   bounded under any load;
 * - only responses below 500 are saved, and requests refused before the handler
 *   ran (auth, rate limit, validation) save nothing, so a corrected retry works;
 * - an answer holding a secret is replayed from memory only (`finishWithSecret`).
 */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** The longest key kept at all: a bound that protects the sandbox (docs/configuration.md, "Bounds"), not an inferred rule. */
export const MAX_KEPT_KEY_LENGTH = 1024;

/** The refusal of an empty key, and under --strict of one longer than MAX_IDEMPOTENCY_KEY_LENGTH. */
export const idempotencyKeyInvalid = () => badRequest('IDEMPOTENCY_KEY_INVALID', `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} characters`);
/**
 * Saved outcomes kept per workspace (docs/api-notes.md). Checked every
 * IDEMPOTENCY_TRIM_BATCH saves, so a workspace holds at most the sum.
 */
export const IDEMPOTENCY_MAX_KEYS = 10_000;
export const IDEMPOTENCY_TRIM_BATCH = 1_000;

export const IdempotencyRecordSchema = z.object({
  id: z.string().describe('the Idempotency-Key'),
  method: z.string(),
  path: z.string(),
  fingerprint: z.string(),
  statusCode: z.number().int(),
  body: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export type IdempotencyRecord = z.output<typeof IdempotencyRecordSchema>;
export const IDEMPOTENCY = defineCollection({ name: 'idempotency', schema: IdempotencyRecordSchema, idPrefix: null, internal: true });

export type IdempotencyOutcome = { kind: 'new' } | { kind: 'replay'; record: IdempotencyRecord };

/** Answers held in memory for replays (see `finishWithSecret`); the oldest are forgotten first. */
export const MAX_SECRET_REPLAYS = 1_000;

export class Idempotency {
  private inFlight = new Set<string>();
  /**
   * Answers too secret to write down (an organization key's creation holds the key itself), by
   * slot: replayed in place of the saved outcome while the saved record they belong to (same
   * createdAt) is within its window. Never on disk, so a restart forgets them (docs/api-notes.md, "Idempotency").
   */
  private readonly secretReplays = new Map<string, { createdAt: string; statusCode: number; body: string }>();
  /** saves per workspace since its last trim check */
  private savesSinceTrim = new Map<string, number>();

  private readonly records: Repository<IdempotencyRecord>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.records = IDEMPOTENCY.in(store);
  }

  begin(workspaceId: string, key: string, method: string, path: string, body: unknown): IdempotencyOutcome {
    // "any unique string" (API description): past MAX_IDEMPOTENCY_KEY_LENGTH a warning, not a
    // refusal (api-scope.ts); past MAX_KEPT_KEY_LENGTH a refusal that bounds what 10,000 kept records weigh
    if (key.length === 0) throw idempotencyKeyInvalid();
    if (key.length > MAX_KEPT_KEY_LENGTH) {
      throw badRequest(
        'IDEMPOTENCY_KEY_INVALID',
        `Idempotency-Key must be at most ${MAX_KEPT_KEY_LENGTH} characters: the sandbox keeps 10,000 keys a workspace, and bounds what they weigh`,
      );
    }
    const slot = `${workspaceId}\u0000${key}`;
    if (this.inFlight.has(slot)) {
      throw conflict('IDEMPOTENCY_IN_PROGRESS', 'A request with this Idempotency-Key is still in progress; retry later').because(
        'IDEMPOTENCY_IN_PROGRESS',
        `Idempotency-Key "${key.slice(0, 64)}" belongs to a request of this workspace that has not answered yet; retry once it has`,
      );
    }
    const fingerprint = fingerprintOf(method, path, body);
    const existing = this.records.get(workspaceId, key);
    if (existing && Date.parse(existing.expiresAt) > this.clock.now()) {
      if (existing.fingerprint !== fingerprint) {
        const differs =
          existing.method !== method || existing.path !== path ? `that request was ${existing.method} ${existing.path}` : 'same method and path, another body';
        throw unprocessable('IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key was already used with a different request; use a new key').because(
          'IDEMPOTENCY_KEY_REUSED',
          `Idempotency-Key "${key.slice(0, 64)}" was first used at ${existing.createdAt} (answered ${existing.statusCode}; kept until ${existing.expiresAt}): ${differs}`,
        );
      }
      const secret = this.secretReplays.get(slot);
      if (secret && secret.createdAt === existing.createdAt)
        return { kind: 'replay', record: { ...existing, statusCode: secret.statusCode, body: secret.body } };
      return { kind: 'replay', record: existing };
    }
    this.secretReplays.delete(slot);
    this.inFlight.add(slot);
    return { kind: 'new' };
  }

  /**
   * Saves `saved` as the outcome (on disk, as `finish` does) and keeps `secret`, the real answer,
   * in memory only: a retry within the window gets `secret` back, and one after a restart, or
   * after MAX_SECRET_REPLAYS newer ones, gets `saved`, which must say why.
   */
  async finishWithSecret(
    workspaceId: string,
    key: string,
    method: string,
    path: string,
    body: unknown,
    saved: { statusCode: number; payload: string },
    secret: { statusCode: number; payload: string },
  ): Promise<void> {
    const record = await this.finish(workspaceId, key, method, path, body, saved.statusCode, saved.payload);
    if (!record) return;
    const slot = `${workspaceId}\u0000${key}`;
    this.secretReplays.delete(slot); // re-inserted last: Map order is the eviction order
    this.secretReplays.set(slot, { createdAt: record.createdAt, statusCode: secret.statusCode, body: secret.payload });
    if (this.secretReplays.size > MAX_SECRET_REPLAYS) this.secretReplays.delete(this.secretReplays.keys().next().value!);
  }

  /** Saves the outcome (when < 500) and releases the key; resolves with the saved record. */
  async finish(
    workspaceId: string,
    key: string,
    method: string,
    path: string,
    body: unknown,
    statusCode: number,
    payload: string,
  ): Promise<IdempotencyRecord | undefined> {
    const slot = `${workspaceId}\u0000${key}`;
    try {
      if (statusCode >= 500) return undefined;
      const now = this.clock.now();
      const record: IdempotencyRecord = {
        id: key,
        method,
        path,
        fingerprint: fingerprintOf(method, path, body),
        statusCode,
        body: payload,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + IDEMPOTENCY_RETENTION_MS).toISOString(),
      };
      await this.store.commit([...this.trimOps(workspaceId), this.records.putOp(workspaceId, record)]);
      return record;
    } finally {
      this.inFlight.delete(slot);
    }
  }

  /** Every batch of a workspace's saves: deletes for its oldest outcomes past the bound (one more for the save). */
  private trimOps(workspaceId: string): Op[] {
    const saves = (this.savesSinceTrim.get(workspaceId) ?? 0) + 1;
    this.savesSinceTrim.set(workspaceId, saves % IDEMPOTENCY_TRIM_BATCH);
    if (saves < IDEMPOTENCY_TRIM_BATCH) return [];
    const rows = this.records.list(workspaceId);
    if (rows.length < IDEMPOTENCY_MAX_KEYS) return [];
    return rows.slice(0, rows.length - IDEMPOTENCY_MAX_KEYS + 1).map((row) => this.records.deleteOp(workspaceId, row.id));
  }

  release(workspaceId: string, key: string): void {
    this.inFlight.delete(`${workspaceId}\u0000${key}`);
  }

  /** Deletes expired records; run from a clock timer. */
  async purgeExpired(): Promise<number> {
    const ops: Op[] = [];
    for (const workspaceId of this.records.partitions()) {
      const now = this.clock.nowIn(workspaceId); // retention runs on each workspace's own clock
      for (const row of this.records.list(workspaceId)) {
        if (Date.parse(row.expiresAt) > now) continue;
        ops.push(this.records.deleteOp(workspaceId, row.id));
        this.secretReplays.delete(`${workspaceId}\u0000${row.id}`);
      }
    }
    if (ops.length) await this.store.commit(ops);
    return ops.length;
  }
}

function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

/** JSON with sorted object keys, so key order does not make two bodies differ. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
