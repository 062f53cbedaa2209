import type { Principal } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import { validationError } from '../../core/errors.ts';
import { newId, parseId } from '../../core/ids.ts';
import { isLoopback } from '../../config.ts';
import type { SelfGuard } from '../../core/self-guard.ts';
import type { Repository, Store } from '../../storage/index.ts';
import { newWebhookSecret } from '../../webhooks/signing.ts';
import type { CreateSubscriptionBody, UpdateSubscriptionBody } from './requests.ts';
import { subscriptionView, type WebhookSubscription, type WebhookSubscriptionRecord } from './schemas.ts';
import { WEBHOOK_SUBSCRIPTIONS } from './collections.ts';
import { unknownRecord } from '../../core/reasons.ts';
import { warning, type SandboxWarning } from '../../core/warnings.ts';
import { disabledNotice } from '../../webhooks/subscription-health.ts';

/**
 * Delivery URLs "must be HTTPS" (API description, "Webhook subscription").
 * Plain http is accepted for loopback hosts so a local receiver works, unless
 * the strictWebhookUrls option asks for production's rule.
 */
export function urlProblem(raw: string, strict: boolean): string | null {
  const url = new URL(raw);
  if (url.protocol === 'https:') return null;
  if (url.protocol !== 'http:') return 'body.url: must be an https:// URL';
  if (strict) return 'body.url: must be an https:// URL (strictWebhookUrls is on, so http:// is refused even for loopback)';
  if (!isLoopback(url.hostname)) return 'body.url: must be an https:// URL; plain http:// is accepted only for loopback hosts (localhost, 127.0.0.1, ::1)';
  return null;
}

export class WebhookSubscriptionService {
  private readonly subscriptions: Repository<WebhookSubscriptionRecord>;

  constructor(
    store: Store,
    private readonly clock: Clock,
    private readonly strictUrls: boolean,
    private readonly selfGuard: SelfGuard,
  ) {
    this.subscriptions = WEBHOOK_SUBSCRIPTIONS.in(store);
  }

  list(principal: Principal): WebhookSubscription[] {
    return [...this.subscriptions.list(principal.workspace.id)]
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
      .map(subscriptionView);
  }

  get(principal: Principal, rawId: string): WebhookSubscription {
    return subscriptionView(this.require(principal, rawId));
  }

  /** SUBSCRIPTION_DISABLED for each of them the sandbox disabled (one, or all the workspace's), for X-Sandbox-Warning. */
  disabledWarnings(principal: Principal, rawId?: string): SandboxWarning[] {
    const records = rawId === undefined ? this.subscriptions.list(principal.workspace.id) : [this.require(principal, rawId)];
    return records
      .map(disabledNotice)
      .filter((n) => n !== null)
      .map((n) => warning('SUBSCRIPTION_DISABLED', n));
  }

  async create(principal: Principal, body: CreateSubscriptionBody): Promise<WebhookSubscription & { secret: string }> {
    await this.checkUrl(body.url);
    const now = this.clock.iso();
    const record: WebhookSubscriptionRecord = {
      id: newId(WEBHOOK_SUBSCRIPTIONS),
      workspace_id: principal.workspace.id,
      url: body.url,
      events: [...new Set(body.events)],
      active: body.active,
      max_retries: body.maxRetries,
      headers: body.headers ?? null,
      description: body.description ?? null,
      created_at: now,
      updated_at: now,
      last_delivery_at: null,
      failure_count: 0,
      secret: newWebhookSecret(),
    };
    await this.put(record);
    return { ...subscriptionView(record), secret: record.secret };
  }

  /** Only the fields given change; `headers: null` and `description: null` clear them. */
  async update(principal: Principal, rawId: string, body: UpdateSubscriptionBody): Promise<WebhookSubscription> {
    const current = this.require(principal, rawId);
    if (body.url !== undefined) await this.checkUrl(body.url);
    const next: WebhookSubscriptionRecord = {
      ...current,
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.events !== undefined ? { events: [...new Set(body.events)] } : {}),
      ...(body.headers !== undefined ? { headers: body.headers } : {}),
      ...(body.maxRetries !== undefined ? { max_retries: body.maxRetries } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.active !== undefined ? { active: body.active } : {}),
      // a resumed (or re-aimed) endpoint starts a fresh failing window; a pause by hand is no longer the sandbox's
      ...(body.active !== undefined || body.url !== undefined ? { failing_since: null, disabled: null } : {}),
      updated_at: this.clock.iso(),
    };
    await this.put(next);
    return subscriptionView(next);
  }

  /** Pending deliveries of a deleted subscription are cancelled when their next attempt comes up. */
  async delete(principal: Principal, rawId: string): Promise<void> {
    const current = this.require(principal, rawId);
    await this.subscriptions.delete(principal.workspace.id, current.id);
  }

  private require(principal: Principal, rawId: string): WebhookSubscriptionRecord {
    const id = parseId(WEBHOOK_SUBSCRIPTIONS, 'id', rawId);
    const found = this.subscriptions.get(principal.workspace.id, id);
    if (!found) throw unknownRecord('Webhook subscription', id, WEBHOOK_SUBSCRIPTIONS, 'id', principal.workspace.id);
    return found;
  }

  private async checkUrl(url: string): Promise<void> {
    // the more precise refusal first: a URL aimed at the sandbox is refused on any scheme
    const self = await this.selfGuard.urlProblem(url);
    if (self) throw validationError([`body.url: ${self}`]);
    const problem = urlProblem(url, this.strictUrls);
    if (problem) throw validationError([problem]);
  }

  private put(record: WebhookSubscriptionRecord): Promise<void> {
    return this.subscriptions.put(record.workspace_id, record);
  }
}
