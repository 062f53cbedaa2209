import { randomInt } from 'node:crypto';
import type { Principal } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import type { ErrorCode } from '../../core/error-codes.ts';
import { apiError, type ApiError } from '../../core/errors.ts';
import { frozenClockHint, resendTooSoon } from '../../core/reasons.ts';
import { newId } from '../../core/ids.ts';
import { hashesEqual, hashSecret } from '../../core/secrets.ts';
import { FieldIndex, textKey, type Op, type Store } from '../../storage/index.ts';
import { deliveryCountOps } from '../analytics/service.ts';
import type { Verification } from './schemas.ts';
import { outcomeFor } from './test-targets.ts';
import { VERIFICATIONS } from './collections.ts';

/** Rules of the sandbox's design (docs/areas.md): all on the sandbox clock. */
export const CODE_TTL_MS = 10 * 60_000;
export const RESEND_COOLDOWN_MS = 30_000;
export const MAX_ATTEMPTS = 5;

type Channel = Verification['channel'];
const fail = (status: number, code: ErrorCode, error: string) => apiError(status, code, error);
/** The code is hashed with its challenge id, so equal codes never share a hash. */
const hashCode = (id: string, code: string) => hashSecret(`${id}:${code}`);

export class VerificationService {
  /** verifications by channel and target: start and confirm look up the latest without a scan */
  private readonly byTarget: FieldIndex<Verification>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {
    this.byTarget = FieldIndex.on(store, VERIFICATIONS, 'channel+target', (v) =>
      textKey(v.channel) !== null && textKey(v.target) !== null ? `${v.channel}\u0000${v.target}` : null,
    );
  }

  /**
   * Sends a new 6-digit code; the new code replaces the pending one (status superseded). A
   * resend within 30 s of the last send goes to `tooSoon` (a warning, or a 429 under --strict). Test
   * targets answer 400 invalid_number or 422 undeliverable.
   */
  async start(
    principal: Principal,
    channel: Channel,
    target: string,
    tooSoon: (message: string, refusal: () => ApiError) => void = (_m, refusal) => {
      throw refusal();
    },
  ): Promise<{ ok: true; expiresAt: string }> {
    const workspaceId = principal.workspace.id;
    const outcome = outcomeFor(target);
    if (outcome === 'invalid') throw fail(400, 'INVALID_NUMBER', `Invalid phone number ${target}: not a number that can receive SMS`);
    const now = this.clock.now();
    const latest = this.latest(workspaceId, channel, target);
    if (latest && Date.parse(latest.createdAt) + RESEND_COOLDOWN_MS > now) {
      const next = Date.parse(latest.createdAt) + RESEND_COOLDOWN_MS;
      const hint = frozenClockHint(this.clock, workspaceId, next - now);
      // the description states no resend limit: a resend within the cooldown is sent, with a
      // warning, and refused 429 only under --strict (docs/divergences.md)
      tooSoon(
        `a code was sent to this ${channel === 'sms' ? 'number' : 'address'} ${Math.round((now - Date.parse(latest.createdAt)) / 1000)} s ago; the sandbox infers one send per ${RESEND_COOLDOWN_MS / 1000} s`,
        () => resendTooSoon(Math.ceil((next - now) / 1000), target, latest.createdAt, new Date(next).toISOString(), hint),
      );
    }
    const day = this.clock.iso().slice(0, 10);
    const undeliverable = outcome === 'undeliverable';
    const failedEvent = channel === 'email' ? 'bounced' : 'failed';
    const ops: Op[] = deliveryCountOps(this.store, workspaceId, day, channel, ['sent', undeliverable ? failedEvent : 'delivered']);
    if (latest?.status === 'pending') ops.push(this.put(workspaceId, { ...latest, status: 'superseded' }));
    const id = newId(VERIFICATIONS);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const record: Verification = {
      id,
      channel,
      target,
      codeHash: hashCode(id, code),
      code,
      status: undeliverable ? 'failed' : 'pending',
      attempts: 0,
      expiresAt: new Date(now + CODE_TTL_MS).toISOString(),
      createdAt: new Date(now).toISOString(),
    };
    ops.push(this.put(workspaceId, record));
    await this.store.commit(ops);
    if (undeliverable) throw fail(422, 'UNDELIVERABLE', `The code could not be delivered to ${target}`);
    return { ok: true, expiresAt: record.expiresAt };
  }

  /**
   * Checks a code against the latest challenge of the target. Wrong: 400
   * invalid_code (also when nothing is pending); past expiresAt: 400
   * code_expired; the 5th wrong attempt and anything after: 400 too_many_attempts.
   */
  async confirm(principal: Principal, channel: Channel, target: string, code: string): Promise<{ ok: true }> {
    const workspaceId = principal.workspace.id;
    const latest = this.latest(workspaceId, channel, target);
    const invalid = fail(400, 'INVALID_CODE', 'Invalid verification code');
    if (!latest || latest.status === 'verified' || latest.status === 'superseded') throw invalid;
    // failed without attempts: the code was never delivered (test target)
    if (latest.status === 'failed') throw latest.attempts >= MAX_ATTEMPTS ? this.exhausted(latest) : invalid;
    if (latest.status === 'expired' || Date.parse(latest.expiresAt) <= this.clock.now()) {
      if (latest.status === 'pending') await this.store.commit([this.put(workspaceId, { ...latest, status: 'expired' })]);
      throw fail(400, 'CODE_EXPIRED', 'The verification code has expired; start a new verification');
    }
    if (hashesEqual(hashCode(latest.id, code), latest.codeHash)) {
      await this.store.commit([this.put(workspaceId, { ...latest, status: 'verified', attempts: latest.attempts + 1 })]);
      return { ok: true };
    }
    const attempts = latest.attempts + 1;
    const exhausted = attempts >= MAX_ATTEMPTS;
    await this.store.commit([this.put(workspaceId, { ...latest, attempts, status: exhausted ? 'failed' : 'pending' })]);
    throw exhausted ? this.exhausted(latest) : invalid;
  }

  private exhausted(v: Verification): ApiError {
    return fail(400, 'TOO_MANY_ATTEMPTS', `Too many attempts: the code for ${v.target} is no longer valid; start a new verification`);
  }

  private latest(workspaceId: string, channel: Channel, target: string): Verification | undefined {
    let latest: Verification | undefined;
    for (const row of this.byTarget.rows(workspaceId, `${channel}\u0000${target}`)) {
      if (!latest || row.createdAt >= latest.createdAt) latest = row;
    }
    return latest;
  }

  private put(workspaceId: string, row: Verification): Op {
    return VERIFICATIONS.putOp(workspaceId, row);
  }
}
