import { undiciRequest } from '../core/http-client.ts';
import { pathOf, type ControlMethod, type ControlRoute, type RouteData, type RouteInput } from '../http/route-table/contract.ts';
import { CONTROL_ROUTES as ROUTES } from './contracts/index.ts';
import { sendText } from './http-send.ts';
import { SseParser, type StreamEvent } from './sse.ts';

/**
 * A small typed client of the control plane (/__sandbox), for the CLI and the
 * dashboard. Every call goes through a route of the one route table
 * (./contracts/index.ts), the one the server registers from: the path, the
 * method and the types of what is sent and answered all come from the route's
 * zod schemas, so client and server cannot drift apart without a type error
 * (docs/architecture.md, "The control-plane contract"). Every control-plane
 * body is wrapped in `data`; `request()` unwraps it.
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
  constructor(
    readonly status: number,
    message: string,
    readonly body: unknown,
  ) {
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

export interface CallOptions {
  timeoutMs?: number;
}
/** A route's input may be left out when nothing in it is required. */
type CallArgs<R extends ControlRoute> =
  // biome-ignore lint/complexity/noBannedTypes: `{}` here asks whether every field of the input is optional
  {} extends RouteInput<R> ? [input?: RouteInput<R>, options?: CallOptions] : [input: RouteInput<R>, options?: CallOptions];
type Query = Record<string, unknown>;

/** The answers' types, as the CLI, the dashboard and users' scripts name them (all from the route table). */
export type WorkspaceSummary = RouteData<typeof ROUTES.workspace>;
export type CreatedWorkspace = RouteData<typeof ROUTES.createWorkspace>;
export type DeliverySummary = RouteData<typeof ROUTES.delivery>;
export type DeliveryAttemptSummary = DeliverySummary['attempts'][number];
export type SubscriptionSummary = RouteData<typeof ROUTES.setSubscriptionActive>;
export type CreatedWorkspaceKey = RouteData<typeof ROUTES.createKey>;
export type OrganizationSummary = RouteData<typeof ROUTES.organizations>[number];
export type OrgKeySummary = RouteData<typeof ROUTES.orgKeys>[number];
export type CreateOrgKeyInput = NonNullable<RouteInput<typeof ROUTES.createOrgKey>['body']>;
export type ClockState = RouteData<typeof ROUTES.clock>;
export type WorkspaceClockState = RouteData<typeof ROUTES.workspaceClock>;
export type FaultRuleSummary = RouteData<typeof ROUTES.addFault>;
export type FaultRuleInput = NonNullable<RouteInput<typeof ROUTES.addFault>['body']>;
export type RateBucketSummary = RouteData<typeof ROUTES.rateLimits>[number];
export type SnapshotSummary = RouteData<typeof ROUTES.saveSnapshot>;
export type SeedResult = RouteData<typeof ROUTES.seed>;
/** One entry of the request log, as GET /__sandbox/requests and the stream send it. */
export type RequestLogLine = RouteData<typeof ROUTES.requests>[number];
/** The run report (GET /__sandbox/report, `sandbox.report()`, `sandbox exec --report`). */
export type RunReport = RouteData<typeof ROUTES.report>;
export type HealthState = RouteData<typeof ROUTES.health>;
/** The parity report of `sandbox proxy` (GET /__sandbox/parity, docs/parity.md), and one difference's two answers. */
export type ParityReport = RouteData<typeof ROUTES.parity>;
export type ParityExample = RouteData<typeof ROUTES.parityExample>;
export type VerificationSummary = RouteData<typeof ROUTES.verifications>[number];

export { SseParser, type StreamEvent } from './sse.ts';
export { CONTROL_ROUTES } from './contracts/index.ts';

export class ControlClient {
  readonly baseUrl: string;

  constructor(private readonly options: ControlClientOptions = {}) {
    this.baseUrl = (options.url ?? DEFAULT_CONTROL_URL).replace(/\/+$/, '');
  }

  /** Calls one route of the table and returns its unwrapped `data`, typed by the route's schema. */
  async request<R extends ControlRoute>(route: R, ...[input, options]: CallArgs<R>): Promise<RouteData<R>> {
    const text = await this.requestText(route, ...([input, options] as CallArgs<R>));
    const answer = (text ? safeJson(text) : null) as { data: RouteData<R> } | RouteData<R> | null;
    return (route.raw ? answer : (answer as { data: RouteData<R> } | null)?.data) as RouteData<R>;
  }

  /** Calls one route of the table and returns the answer's text as sent (GET /state's database file). */
  async requestText<R extends ControlRoute>(route: R, ...[input, options]: CallArgs<R>): Promise<string> {
    const { params, query, body } = (input ?? {}) as { params?: Record<string, unknown>; query?: Query; body?: unknown };
    return this.send(route.method, pathOf(route, params), {
      query,
      timeoutMs: options?.timeoutMs,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  }

  /** The answer's text; with `bytes`, its bytes (GET /bundle's gzip file). An error status throws either way. */
  private send(method: ControlMethod, path: string, options: { query?: Query | undefined; timeoutMs?: number | undefined; bytes: true }): Promise<Buffer>;
  private send(method: ControlMethod, path: string, options: { query?: Query | undefined; body?: string; timeoutMs?: number | undefined }): Promise<string>;
  private async send(
    method: ControlMethod,
    path: string,
    options: { query?: Query | undefined; body?: string; timeoutMs?: number | undefined; bytes?: boolean },
  ): Promise<string | Buffer> {
    const url = new URL(`${this.baseUrl}/__sandbox${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    let res;
    try {
      res = await sendText(url, {
        method,
        // every POST says JSON, even without a body: the control plane refuses one that does not (src/core/host-guard.ts)
        headers: this.headers(options.body !== undefined || method === 'POST'),
        ...(options.body !== undefined ? { body: options.body } : {}),
        signal: AbortSignal.timeout(options.timeoutMs ?? this.options.timeoutMs ?? 30_000),
      });
    } catch (err) {
      throw this.notRunning(err);
    }
    if (options.bytes && res.status < 400) return res.bytes();
    const text = await res.text();
    if (res.status >= 400) {
      const body: unknown = text ? safeJson(text) : null;
      const message = typeof body === 'object' && body && 'error' in body ? String((body as { error: unknown }).error) : `HTTP ${res.status}`;
      const details = (body as { details?: { message: string }[] } | null)?.details?.map((d) => d.message).join('; ');
      throw new ControlPlaneError(res.status, details ? `${message}: ${details}` : message, body);
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
    return new SandboxNotRunningError(`no sandbox is running at ${this.baseUrl} (${reason(err)})`);
  }

  // Named shortcuts for the calls the CLI and the dashboard make; each is one route of the table.

  /** The failure bundle of the run so far: the gzip file's bytes (GET /bundle, `sandbox bundle save`). */
  bundle(): Promise<Buffer> {
    return this.send(ROUTES.bundle.method, pathOf(ROUTES.bundle, undefined), { timeoutMs: STATE_TIMEOUT_MS, bytes: true });
  }

  health() {
    return this.request(ROUTES.health, {}, { timeoutMs: 5_000 });
  }
  /** asks a `sandbox start` sandbox to stop as SIGTERM would; answers at once, with the pid to wait for */
  stop() {
    return this.request(ROUTES.stop, {}, { timeoutMs: 5_000 });
  }
  workspaces() {
    return this.request(ROUTES.workspaces);
  }
  createWorkspace(body: RouteInput<typeof ROUTES.createWorkspace>['body'] = {}) {
    return this.request(ROUTES.createWorkspace, { body });
  }
  deleteWorkspace(id: string) {
    return this.request(ROUTES.deleteWorkspace, { params: { id } });
  }
  resetWorkspace(id: string) {
    return this.request(ROUTES.resetWorkspace, { params: { id } }, { timeoutMs: STATE_TIMEOUT_MS });
  }
  advanceWorkspaceClock(id: string, ms: number) {
    return this.request(ROUTES.advanceWorkspaceClock, { params: { id }, body: { ms } });
  }
  eventTypes() {
    return this.request(ROUTES.eventTypes);
  }

  /** `override` replaces fields of the data and `add` adds new ones; keys are dotted paths (`customer.email`). */
  emitEvent(body: RouteInput<typeof ROUTES.emitEvent>['body']) {
    return this.request(ROUTES.emitEvent, { body });
  }
  deliveries(query: RouteInput<typeof ROUTES.deliveries>['query'] = {}) {
    return this.request(ROUTES.deliveries, { query });
  }

  /** Creates, or reuses by URL, a subscription in a workspace, and returns its signing secret. */
  ensureSubscription(body: RouteInput<typeof ROUTES.ensureSubscription>['body']) {
    return this.request(ROUTES.ensureSubscription, { body });
  }

  /** The subscription to `url` in a workspace and its secret, without changing anything (404 when there is none). */
  findSubscription(query: RouteInput<typeof ROUTES.findSubscription>['query']) {
    return this.request(ROUTES.findSubscription, { query });
  }
  setSubscriptionActive(id: string, body: RouteInput<typeof ROUTES.setSubscriptionActive>['body']) {
    return this.request(ROUTES.setSubscriptionActive, { params: { id }, body });
  }

  /** The scopes /v1 routes require, with their resources and actions. */
  scopes() {
    return this.request(ROUTES.scopes);
  }
  createKey(workspaceId: string, body: RouteInput<typeof ROUTES.createKey>['body']) {
    return this.request(ROUTES.createKey, { params: { id: workspaceId }, body });
  }
  revokeKey(id: string) {
    return this.request(ROUTES.revokeKey, { params: { id } });
  }
  organizations(query: RouteInput<typeof ROUTES.organizations>['query'] = {}) {
    return this.request(ROUTES.organizations, { query });
  }
  orgKeys(query: RouteInput<typeof ROUTES.orgKeys>['query'] = {}) {
    return this.request(ROUTES.orgKeys, { query });
  }
  createOrgKey(organizationId: string, body: CreateOrgKeyInput) {
    return this.request(ROUTES.createOrgKey, { params: { id: organizationId }, body });
  }
  revokeOrgKey(id: string) {
    return this.request(ROUTES.revokeOrgKey, { params: { id } });
  }
  clock() {
    return this.request(ROUTES.clock);
  }
  advanceClock(ms: number) {
    return this.request(ROUTES.advanceClock, { body: { ms } });
  }
  /** To the next due timer of a workspace (or of any, on the sandbox clock); answers what ran. */
  advanceClockToNext(workspaceId?: string) {
    return this.request(ROUTES.advanceClockToNext, { body: workspaceId ? { workspaceId } : {} });
  }
  setClock(at: string) {
    return this.request(ROUTES.setClock, { body: { at } });
  }
  addFault(rule: FaultRuleInput) {
    return this.request(ROUTES.addFault, { body: rule });
  }
  faults() {
    return this.request(ROUTES.faults);
  }
  clearFaults() {
    return this.request(ROUTES.clearFaults);
  }
  removeFault(id: string) {
    return this.request(ROUTES.removeFault, { params: { id } });
  }
  rateLimits(query: RouteInput<typeof ROUTES.rateLimits>['query'] = {}) {
    return this.request(ROUTES.rateLimits, { query });
  }
  exhaustRateLimit(target: { workspaceId: string } | { keyId: string }, window?: 'burst' | 'minute') {
    return this.request(ROUTES.exhaustRateLimit, { body: { ...target, ...(window ? { window } : {}) } });
  }
  setWorkspaceMode(workspaceId: string, mode: 'live' | 'sandbox') {
    return this.request(ROUTES.setWorkspaceMode, { params: { id: workspaceId }, body: { mode } });
  }
  saveSnapshot(name: string) {
    return this.request(ROUTES.saveSnapshot, { body: { name } });
  }
  snapshots() {
    return this.request(ROUTES.snapshots);
  }
  restoreSnapshot(name: string) {
    return this.request(ROUTES.restoreSnapshot, { params: { name } }, { timeoutMs: STATE_TIMEOUT_MS });
  }

  /** The whole state as the database file's JSON text (not wrapped in `data`). */
  exportState(): Promise<string> {
    return this.requestText(ROUTES.exportState, {}, { timeoutMs: STATE_TIMEOUT_MS });
  }

  /** Replaces the whole state with `json` (the text of an export or a database file), sent as it is. */
  async importState(json: string): Promise<RouteData<typeof ROUTES.importState>> {
    // the text travels unparsed (a whole database may be large); the server checks it against the route's body schema
    const text = await this.send(ROUTES.importState.method, ROUTES.importState.path, { body: json, timeoutMs: STATE_TIMEOUT_MS });
    return (JSON.parse(text) as { data: RouteData<typeof ROUTES.importState> }).data;
  }
  reset() {
    return this.request(ROUTES.reset, {}, { timeoutMs: STATE_TIMEOUT_MS });
  }
  seed(body: RouteInput<typeof ROUTES.seed>['body']) {
    return this.request(ROUTES.seed, { body }, { timeoutMs: STATE_TIMEOUT_MS });
  }
  requests(limit?: number) {
    return this.request(ROUTES.requests, { query: { limit } });
  }
  report() {
    return this.request(ROUTES.report);
  }
  /** the data inspector (docs/control-plane.md, "Data inspector") */
  dataCollections(workspaceId: string) {
    return this.request(ROUTES.dataCollections, { params: { id: workspaceId } });
  }
  dataPage(workspaceId: string, collection: string, query: RouteInput<typeof ROUTES.dataPage>['query'] = {}) {
    return this.request(ROUTES.dataPage, { params: { id: workspaceId, collection }, query });
  }
  dataRecord(workspaceId: string, collection: string, recordId: string) {
    return this.request(ROUTES.dataRecord, { params: { id: workspaceId, collection, recordId } });
  }
  clearReport() {
    return this.request(ROUTES.clearReport);
  }
  /** the parity report of a `sandbox proxy` (docs/parity.md); 404 when the sandbox is not one */
  parity() {
    return this.request(ROUTES.parity);
  }
  parityExample(requestId: string) {
    return this.request(ROUTES.parityExample, { params: { requestId } });
  }
  clearParity() {
    return this.request(ROUTES.clearParity);
  }

  delivery(id: string) {
    return this.request(ROUTES.delivery, { params: { id } });
  }
  workspaceClock(id: string) {
    return this.request(ROUTES.workspaceClock, { params: { id } });
  }
  /** Sends a delivery again now (same webhook-id); answers the delivery after the attempt. */
  replayDelivery(id: string) {
    return this.request(ROUTES.replayDelivery, { params: { id } });
  }
  verifications(query: RouteInput<typeof ROUTES.verifications>['query'] = {}) {
    return this.request(ROUTES.verifications, { query });
  }

  /** Reads GET /__sandbox/stream until it ends or `signal` aborts; yields every event (`query`: only some, without captures). */
  async *stream(signal?: AbortSignal, query: RouteInput<typeof ROUTES.stream>['query'] = {}): AsyncGenerator<StreamEvent> {
    let res;
    const url = new URL(`${this.baseUrl}/__sandbox${ROUTES.stream.path}`);
    for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    try {
      const request = await undiciRequest();
      res = await request(url, {
        method: 'GET',
        headers: { ...this.headers(false), accept: 'text/event-stream' },
        ...(signal ? { signal } : {}),
      });
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
  const e = err as { code?: string; cause?: { code?: string; name?: string }; name?: string };
  // node:http rejects an aborted request with an AbortError whose cause is the signal's reason
  if (e.name === 'TimeoutError' || (e.name === 'AbortError' && e.cause?.name === 'TimeoutError')) return 'timed out';
  const code = e.code ?? e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  return code ?? (err instanceof Error ? err.message : String(err));
}
