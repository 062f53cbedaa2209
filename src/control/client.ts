import { undiciRequest } from '../core/http-client.ts';

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

export interface WorkspaceSummary {
  id: string;
  name: string;
  mode: 'live' | 'sandbox';
  keys: { id: string; name: string; key: string | null; keyPrefix: string; scopes: string[] | null; status: string }[];
}

export interface DeliveryAttemptSummary {
  number: number;
  trigger: 'initial' | 'retry' | 'replay';
  at: string;
  response: { status: number; bodyExcerpt: string } | null;
  latencyMs: number;
  error: string | null;
}

export interface DeliverySummary {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  nextAttemptAt: string | null;
  attempts: DeliveryAttemptSummary[];
}

export interface SubscriptionSummary {
  id: string;
  url: string;
  events: string[];
  active: boolean;
}

export interface CreatedWorkspaceKey {
  id: string;
  workspaceId: string;
  name: string;
  key: string;
  keyPrefix: string;
  scopes: string[] | null;
  status: string;
  createdAt: string;
}

export interface OrganizationSummary {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
}

export interface OrgKeySummary {
  id: string;
  organizationId: string;
  organizationName: string;
  issuedByWorkspaceId: string;
  keyPrefix: string;
  scopes: string[];
  productIds: string[];
  status: 'active' | 'revoked';
  expiresAt: string | null;
  lastUsedAt: string | null;
  rateLimitPolicy: { rps: number; rpm: number; burst: number };
  createdAt: string;
  revokedAt: string | null;
  revokedBy: string | null;
}

export interface CreateOrgKeyInput {
  scopes?: string[];
  productIds?: string[];
  expiresAt?: string | null;
  rateLimitPolicy?: { rps: number; rpm: number; burst: number };
}

export interface ClockState {
  mode: 'real' | 'manual';
  now: string;
  nowMs: number;
  pendingTimers: number;
}

export interface FaultRuleSummary {
  id: string;
  method?: string;
  path?: string;
  workspaceId?: string;
  key?: string;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  latencyMs?: number;
  drop?: boolean;
  times?: number;
  probability?: number;
  seed?: number;
  remaining: number | null;
  hits: number;
  createdAt: string;
}

export type FaultRuleInput = Omit<FaultRuleSummary, 'id' | 'remaining' | 'hits' | 'createdAt'>;

export interface RateBucketSummary {
  bucket: string;
  kind: 'workspace' | 'key';
  id: string;
  limit: number;
  remaining: number;
  /** epoch seconds when the minute window resets; null before first use */
  reset: number | null;
  burst: number;
  burstTokens: number;
  perSecond: number | null;
}

export interface SnapshotSummary {
  name: string;
  createdAt: string;
  bytes: number;
}

export interface SeedResult {
  workspaceId: string;
  seed: number;
  created: Record<string, number>;
  /** existing departures whose seats the new bookings took */
  updated: { departures: number };
  ms: number;
}

/** One entry of the request log, as GET /__sandbox/requests and the stream send it. */
export type RequestLogLine = import('../core/events.ts').RequestLogEntry;

export interface HealthState {
  status: 'ok';
  uptimeMs: number;
  now: string;
}

export interface VerificationSummary {
  id: string;
  workspaceId: string;
  channel: 'sms' | 'email';
  target: string;
  code: string;
  status: string;
  attempts: number;
  expiresAt: string;
  createdAt: string;
}

/** One Server-Sent Event of GET /__sandbox/stream. */
export interface StreamEvent {
  event: string;
  data: string;
}

/**
 * Incremental SSE parser: feed it chunks as they arrive, get whole events
 * back. Comment lines (`: heartbeat`) and `retry:`/`id:` fields are skipped;
 * several `data:` lines of one event are joined by newlines (the SSE rules).
 */
export class SseParser {
  private buffer = '';

  push(chunk: string): StreamEvent[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    const events: StreamEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) events.push({ event, data: data.join('\n') });
    }
    return events;
  }
}

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

  emitEvent(body: { workspaceId: string; type: string; data?: Record<string, unknown> }) {
    return this.call<{ event: { id: string; type: string; workspaceId: string; createdAt: string; data: Record<string, unknown> }; deliveryIds: string[] }>('POST', '/events', { body });
  }

  deliveries(query: { workspaceId?: string; subscriptionId?: string; eventType?: string; status?: string; limit?: number } = {}): Promise<DeliverySummary[]> {
    return this.call('GET', '/deliveries', { query });
  }

  /** Creates, or reuses by URL, a subscription in a workspace, and returns its signing secret. */
  ensureSubscription(body: { workspaceId: string; url: string; events: string[]; description?: string }) {
    return this.call<{ subscription: SubscriptionSummary; secret: string; created: boolean }>('POST', '/webhook-subscriptions', { body });
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
