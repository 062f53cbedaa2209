import { request } from 'undici';

/**
 * A small typed client of the control plane (/__sandbox), for the CLI and the
 * dashboard. Every control-plane body is wrapped in `data`; `call()` unwraps it.
 * Add an endpoint by adding a method that names its path and result type.
 */
export const DEFAULT_CONTROL_URL = 'http://127.0.0.1:4010';

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

export class ControlClient {
  readonly baseUrl: string;

  constructor(private readonly options: ControlClientOptions = {}) {
    this.baseUrl = (options.url ?? DEFAULT_CONTROL_URL).replace(/\/+$/, '');
  }

  /** Calls `/__sandbox<path>` and returns the unwrapped `data`. */
  async call<T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const url = new URL(`${this.baseUrl}/__sandbox${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.token) headers['x-sandbox-token'] = this.options.token;
    let res;
    try {
      res = await request(url, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw new SandboxNotRunningError(`no sandbox is running at ${this.baseUrl} (${reason(err)}); start one with \`sandbox start\` or pass --url`);
    }
    const text = await res.body.text();
    const body: unknown = text ? safeJson(text) : null;
    if (res.statusCode >= 400) {
      const message = typeof body === 'object' && body && 'error' in body ? String((body as { error: unknown }).error) : `HTTP ${res.statusCode}`;
      const details = (body as { details?: { message: string }[] } | null)?.details?.map((d) => d.message).join('; ');
      throw new ControlPlaneError(res.statusCode, details ? `${message}: ${details}` : message, body);
    }
    return (body as { data: T }).data;
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
