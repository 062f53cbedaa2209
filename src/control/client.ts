import { undiciRequest } from '../core/http-client.ts';
import type { WorkspaceSummary, DeliverySummary, SubscriptionSummary, CreatedWorkspaceKey, OrganizationSummary, OrgKeySummary, CreateOrgKeyInput, ClockState, FaultRuleSummary, FaultRuleInput, RateBucketSummary, SnapshotSummary, SeedResult, RequestLogLine, HealthState, VerificationSummary } from './client-types.ts';
import { SseParser, type StreamEvent } from './sse.ts';

/**
 * A small typed client of the control plane (/__sandbox), for the CLI and the
 * dashboard. Every control-plane body is wrapped in `data`; `call()` unwraps it.
 * Add an endpoint by adding a method that names its path and result type.
 */
export const DEFAULT_CONTROL_URL = 'http://127.0.0.1:4010';
/** Exports, imports, resets and seeding may move a large database. */
const STATE_TIMEOUT_MS = 10 * 60_000;

/** No sandbox answers at the URL (connection refused, unknown host, ...). */
export class SandboxNotRunningError extends Error {
  override readonly name = 'SandboxNotRunningError';
}

/** The control plane answered with an error status; `message` is its `error` text. */
export class ControlPlaneError extends Error {
  override readonly name = 'ControlPlaneError';
  constructor(readonly status: number, message: string, readonly body: unknown) {
    super(message);
  }
}

export interface ControlClientOptions {
  /** the sandbox base URL, e.g. http://127.0.0.1:4010 (the /__sandbox prefix is added) */
  url?: string;
  /** the control token, needed when the sandbox is bound to a non-loopback host */
  token?: string;
  timeoutMs?: number;
}

export type Query = Record<string, string | number | boolean | undefined>;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type { WorkspaceSummary, DeliveryAttemptSummary, DeliverySummary, SubscriptionSummary, CreatedWorkspaceKey, OrganizationSummary, OrgKeySummary, CreateOrgKeyInput, ClockState, FaultRuleSummary, FaultRuleInput, RateBucketSummary, SnapshotSummary, SeedResult, RequestLogLine, HealthState, VerificationSummary } from './client-types.ts';
export { SseParser, type StreamEvent } from './sse.ts';

export class ControlClient {
  readonly baseUrl: string;

  constructor(private readonly options: ControlClientOptions = {}) {
    this.baseUrl = (options.url ?? DEFAULT_CONTROL_URL).replace(/\/+$/, '');
  }

  /** Calls `/__sandbox<path>` and returns the unwrapped `data`. */
  async call<T>(method: HttpMethod, path: string, options: { query?: Query; body?: unknown; timeoutMs?: number } = {}): Promise<T> {
    const { query, body, timeoutMs } = options;
    const text = await this.send(method, path, { query, timeoutMs, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return ((text ? safeJson(text) : null) as { data: T } | null)?.data as T;
  }

  /** Calls `/__sandbox<path>` with a raw JSON body and returns the raw answer (for GET/PUT /state). */
  async send(method: HttpMethod, path: string, options: { query?: Query | undefined; body?: string; timeoutMs?: number | undefined } = {}): Promise<string> {
    const url = new URL(`${this.baseUrl}/__sandbox${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    let res;
    try {
      const request = await undiciRequest();
      res = await request(url, {
        method,
        headers: this.headers(options.body !== undefined),
        ...(options.body !== undefined ? { body: options.body } : {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? this.options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw this.notRunning(err);
    }
    const text = await res.body.text();
    if (res.statusCode >= 400) {
      const body: unknown = text ? safeJson(text) : null;
      const message = typeof body === 'object' && body && 'error' in body ? String((body as { error: unknown }).error) : `HTTP ${res.statusCode}`;
      const details = (body as { details?: { message: string }[] } | null)?.details?.map((d) => d.message).join('; ');
      throw new ControlPlaneError(res.statusCode, details ? `${message}: ${details}` : message, body);
    }
    return text;
  }

  private headers(json: boolean): Record<string, string> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (json) headers['content-type'] = 'application/json';
    if (this.options.token) headers['x-sandbox-token'] = this.options.token;
    return headers;
  }

  private notRunning(err: unknown): SandboxNotRunningError {
    return new SandboxNotRunningError(`no sandbox is running at ${this.baseUrl} (${reason(err)}); start one with \`sandbox start\` or pass --url`);
  }

  workspaces(): Promise<WorkspaceSummary[]> {
    return this.call('GET', '/workspaces');
  }

  eventTypes(): Promise<string[]> {
    return this.call('GET', '/events/types');
  }

  /** `override` replaces fields of the data and `add` adds new ones; keys are dotted paths (`customer.email`). */
  emitEvent(body: { workspaceId: string; type: string; data?: Record<string, unknown>; override?: Record<string, unknown>; add?: Record<string, unknown> }) {
    return this.call<{ event: { id: string; type: string; workspaceId: string; createdAt: string; data: Record<string, unknown> }; deliveryIds: string[] }>('POST', '/events', { body });
  }

  deliveries(query: { workspaceId?: string; subscriptionId?: string; eventType?: string; status?: string; limit?: number } = {}): Promise<DeliverySummary[]> {
    return this.call('GET', '/deliveries', { query });
  }

  /** Creates, or reuses by URL, a subscription in a workspace, and returns its signing secret. */
  ensureSubscription(body: { workspaceId: string; url: string; events: string[]; description?: string; active?: boolean }) {
    return this.call<{ subscription: SubscriptionSummary; secret: string; created: boolean }>('POST', '/webhook-subscriptions', { body });
  }

  /** The subscription to `url` in a workspace and its secret, without changing anything (404 when there is none). */
  findSubscription(query: { workspaceId: string; url: string }) {
    return this.call<{ subscription: SubscriptionSummary; secret: string }>('GET', '/webhook-subscriptions/by-url', { query });
  }

  setSubscriptionActive(id: string, body: { workspaceId: string; active: boolean }): Promise<SubscriptionSummary> {
    return this.call('POST', `/webhook-subscriptions/${encodeURIComponent(id)}/active`, { body });
  }

  /** The scopes /v1 routes require, with their resources and actions. */
  scopes(): Promise<{ scopes: string[]; resources: string[]; actions: string[] }> {
    return this.call('GET', '/scopes');
  }

  createKey(workspaceId: string, body: { name?: string; scopes?: string[] | null }): Promise<CreatedWorkspaceKey> {
    return this.call('POST', `/workspaces/${encodeURIComponent(workspaceId)}/keys`, { body });
  }

  revokeKey(id: string) {
    return this.call<{ id: string; workspaceId: string; status: 'revoked'; revokedAt: string }>('DELETE', `/keys/${encodeURIComponent(id)}`);
  }

  organizations(query: { workspaceId?: string } = {}): Promise<OrganizationSummary[]> {
    return this.call('GET', '/organizations', { query });
  }

  orgKeys(query: { workspaceId?: string } = {}): Promise<OrgKeySummary[]> {
    return this.call('GET', '/org-keys', { query });
  }

  createOrgKey(organizationId: string, body: CreateOrgKeyInput) {
    return this.call<Omit<OrgKeySummary, 'organizationName' | 'lastUsedAt' | 'revokedAt' | 'revokedBy'> & { key: string }>('POST', `/organizations/${encodeURIComponent(organizationId)}/api-keys`, { body });
  }

  revokeOrgKey(id: string) {
    return this.call<{ id: string; organizationId: string; status: 'revoked'; revokedAt: string; revokedBy: string }>('DELETE', `/org-keys/${encodeURIComponent(id)}`);
  }

  clock(): Promise<ClockState> {
    return this.call('GET', '/clock');
  }

  advanceClock(ms: number): Promise<ClockState> {
    return this.call('POST', '/clock/advance', { body: { ms } });
  }

  setClock(at: string): Promise<ClockState> {
    return this.call('POST', '/clock/set', { body: { at } });
  }

  addFault(rule: FaultRuleInput): Promise<FaultRuleSummary> {
    return this.call('POST', '/faults', { body: rule });
  }

  faults(): Promise<FaultRuleSummary[]> {
    return this.call('GET', '/faults');
  }

  clearFaults(): Promise<{ removed: number }> {
    return this.call('DELETE', '/faults');
  }

  removeFault(id: string): Promise<FaultRuleSummary> {
    return this.call('DELETE', `/faults/${encodeURIComponent(id)}`);
  }

  rateLimits(): Promise<RateBucketSummary[]> {
    return this.call('GET', '/rate-limits');
  }

  exhaustRateLimit(target: { workspaceId: string } | { keyId: string }): Promise<RateBucketSummary[]> {
    return this.call('POST', '/rate-limits/exhaust', { body: target });
  }

  setWorkspaceMode(workspaceId: string, mode: 'live' | 'sandbox'): Promise<WorkspaceSummary> {
    return this.call('POST', `/workspaces/${encodeURIComponent(workspaceId)}/mode`, { body: { mode } });
  }

  saveSnapshot(name: string): Promise<SnapshotSummary> {
    return this.call('POST', '/snapshots', { body: { name } });
  }

  snapshots(): Promise<SnapshotSummary[]> {
    return this.call('GET', '/snapshots');
  }

  restoreSnapshot(name: string) {
    return this.call<{ name: string; restored: true; ms: number }>('POST', `/snapshots/${encodeURIComponent(name)}/restore`);
  }

  /** The whole state as the database file's JSON text (not wrapped in `data`). */
  exportState(): Promise<string> {
    return this.send('GET', '/state', { timeoutMs: STATE_TIMEOUT_MS });
  }

  /** Replaces the whole state with `json` (the text of an export or a database file). */
  importState(json: string) {
    return this.send('PUT', '/state', { body: json, timeoutMs: STATE_TIMEOUT_MS }).then(
      (text) => (JSON.parse(text) as { data: { imported: true; collections: number } }).data,
    );
  }

  reset() {
    return this.call<{ reset: true; ms: number; now: string }>('POST', '/reset', { timeoutMs: STATE_TIMEOUT_MS });
  }

  seed(body: { workspaceId: string; products?: number; bookings?: number; seed?: number }): Promise<SeedResult> {
    return this.call('POST', '/seed', { body, timeoutMs: STATE_TIMEOUT_MS });
  }

  requests(limit?: number): Promise<RequestLogLine[]> {
    return this.call('GET', '/requests', { query: { limit } });
  }

  health(): Promise<HealthState> {
    return this.call('GET', '/health', { timeoutMs: 5_000 });
  }

  /** Sends a delivery again now (same webhook-id); answers the delivery after the attempt. */
  replayDelivery(id: string): Promise<DeliverySummary> {
    return this.call('POST', `/deliveries/${encodeURIComponent(id)}/replay`);
  }

  verifications(query: { target?: string; channel?: string; workspaceId?: string; limit?: number } = {}): Promise<VerificationSummary[]> {
    return this.call('GET', '/verifications', { query });
  }

  /** Reads GET /__sandbox/stream until it ends or `signal` aborts; yields every event. */
  async *stream(signal?: AbortSignal): AsyncGenerator<StreamEvent> {
    let res;
    try {
      const request = await undiciRequest();
      res = await request(new URL(`${this.baseUrl}/__sandbox/stream`), { method: 'GET', headers: { ...this.headers(false), accept: 'text/event-stream' }, ...(signal ? { signal } : {}) });
    } catch (err) {
      throw this.notRunning(err);
    }
    if (res.statusCode >= 400) throw new ControlPlaneError(res.statusCode, `HTTP ${res.statusCode} from ${this.baseUrl}/__sandbox/stream`, null);
    const parser = new SseParser();
    const decoder = new TextDecoder();
    for await (const chunk of res.body) yield* parser.push(decoder.decode(chunk as Uint8Array, { stream: true }));
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { error: text.slice(0, 200) };
  }
}

function reason(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string }; name?: string };
  const code = e.code ?? e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (e.name === 'TimeoutError') return 'timed out';
  return code ?? (err instanceof Error ? err.message : String(err));
}
