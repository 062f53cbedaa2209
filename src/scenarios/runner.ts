import { randomUUID } from 'node:crypto';
import { ControlClient, ControlPlaneError, CONTROL_ROUTES as ROUTES, type FaultRuleInput } from '../control/client.ts';
import { pathOf, type ControlRoute, type RouteData, type RouteInput } from '../http/route-table/contract.ts';
import { ScriptedReceiver } from './receiver.ts';
import type { Scenario, Step } from './schema.ts';
import { mismatch, readPath, render, renderForDisplay, type Vars } from './template.ts';

/**
 * Runs a scenario against a running sandbox, through its HTTP API and control
 * plane only (like any client would). Steps run in order; the first failure
 * stops the run, and every step's outcome is reported as it happens.
 */
export interface ScenarioTarget {
  url: string;
  token?: string | undefined;
}

export interface StepResult {
  name: string;
  passed: boolean;
  /** what differed, when it failed */
  message?: string;
}

export interface ScenarioResult {
  name: string;
  passed: boolean;
  steps: StepResult[];
  /** every step the scenario has, a repeat counting each of its runs (what `scenario list` shows) */
  total: number;
  /** steps a failure kept from running */
  notReached: number;
}

/** The steps a scenario runs, a `repeat` counted as its steps times its count: list and run agree on it. */
export function countSteps(steps: readonly Step[]): number {
  return steps.reduce((n, step) => n + ('repeat' in step ? step.repeat * countSteps(step.steps) : 1), 0);
}

class StepFailure extends Error {}

interface RunState {
  target: ScenarioTarget;
  /** the typed control client (src/control/client.ts), made on first use */
  client?: ControlClient;
  vars: Vars;
  receivers: Map<string, ScriptedReceiver>;
  results: StepResult[];
  onStep: (result: StepResult) => void;
}

export async function runScenario(scenario: Scenario, target: ScenarioTarget, onStep: (result: StepResult) => void = () => undefined): Promise<ScenarioResult> {
  const state: RunState = { target, vars: { run: randomUUID().slice(0, 8) }, receivers: new Map(), results: [], onStep };
  let setupFailed = false;
  try {
    Object.assign(state.vars, await builtinVars(state));
    await runSteps(scenario.steps, state);
  } catch (err) {
    if (!(err instanceof StepFailure)) {
      // a pseudo-step, not one of the scenario's: the run failed outside any step
      const result = { name: 'setup', passed: false, message: (err as Error).message };
      setupFailed = true;
      state.results.push(result);
      onStep(result);
    }
  } finally {
    for (const receiver of state.receivers.values()) await receiver.stop();
  }
  const total = countSteps(scenario.steps);
  const ran = state.results.length - (setupFailed ? 1 : 0);
  return { name: scenario.name, passed: state.results.every((r) => r.passed), steps: state.results, total, notReached: Math.max(0, total - ran) };
}

async function runSteps(steps: Step[], state: RunState): Promise<void> {
  for (const step of steps) {
    if ('repeat' in step) {
      for (let i = 0; i < step.repeat; i++) await runSteps(step.steps, state);
      continue;
    }
    // as it ran: `GET /v1/bookings/bkg_1a2b`, not `/v1/bookings/{{bookingId}}`
    const name = renderForDisplay(step.name ?? describe(step), state.vars);
    try {
      await runStep(step, state);
      record(state, { name, passed: true });
    } catch (err) {
      record(state, { name, passed: false, message: (err as Error).message });
      throw new StepFailure();
    }
  }
}

function record(state: RunState, result: StepResult): void {
  state.results.push(result);
  state.onStep(result);
}

async function runStep(step: Exclude<Step, { repeat: number }>, state: RunState): Promise<void> {
  if ('request' in step) return requestStep(step, state);
  if ('control' in step) return controlStep(render(step.control, state.vars), state);
  if ('receiver' in step) {
    const receiver = new ScriptedReceiver(step.receiver.respond);
    state.receivers.set(step.receiver.name, receiver);
    state.vars[`receivers.${step.receiver.name}.url`] = await receiver.start();
    return;
  }
  const wait = step.waitForDelivery;
  const receiver = state.receivers.get(wait.receiver);
  if (!receiver) throw new Error(`no receiver named ${wait.receiver}; add a receiver step first`);
  for (let i = 0; i < wait.attempts; i++) {
    if (receiver.succeeded(wait.type) >= wait.count) return;
    if (wait.advanceMs > 0) await control(state, ROUTES.advanceClock, { body: { ms: wait.advanceMs } });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const got = receiver.received.map((r) => `${r.type}:${r.status}`).join(', ') || 'nothing';
  throw new Error(`expected ${wait.count} successful ${wait.type} deliveries at ${wait.receiver}; it received ${got}`);
}

type RequestStep = Extract<Step, { request: unknown }>;

async function requestStep(step: RequestStep, state: RunState): Promise<void> {
  const req = render(step.request, state.vars);
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  if (req.key) headers.authorization = `Bearer ${req.key}`;
  if (req.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${state.target.url}${req.path}`, {
    method: req.method,
    headers,
    ...(req.body !== undefined ? { body: typeof req.body === 'string' ? req.body : JSON.stringify(req.body) } : {}),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: compared as text
  }
  const response = { status: res.status, headers: Object.fromEntries(res.headers), body };
  const expect = step.expect ? render(step.expect, state.vars) : undefined;
  if (expect?.status !== undefined) {
    const allowed = Array.isArray(expect.status) ? expect.status : [expect.status];
    if (!allowed.includes(res.status)) throw new Error(`status: expected ${allowed.join(' or ')}, got ${res.status} ${brief(text)}`);
  }
  for (const [name, value] of Object.entries(expect?.headers ?? {})) {
    const diff = mismatch(value, response.headers[name.toLowerCase()], `headers.${name}`);
    if (diff) throw new Error(diff);
  }
  if (expect?.body !== undefined) {
    const diff = mismatch(expect.body, body);
    if (diff) throw new Error(diff);
  }
  for (const [name, path] of Object.entries(step.capture ?? {})) {
    const value = readPath(response, path);
    if (value === undefined) throw new Error(`capture ${name}: nothing at ${path}`);
    state.vars[name] = value;
  }
}

type ControlAction = Extract<Step, { control: unknown }>['control'];

async function controlStep(action: ControlAction, state: RunState): Promise<void> {
  switch (action.action) {
    case 'advanceClock':
      return void (await control(state, ROUTES.advanceClock, { body: { ms: action.ms } }));
    case 'revokeKey':
      return void (await control(state, ROUTES.revokeKey, { params: { id: action.keyId } }));
    case 'createKey': {
      const key = await control(state, ROUTES.createKey, { params: { id: action.workspaceId }, body: { name: 'scenario key', scopes: action.scopes ?? null } });
      state.vars[action.captureKey] = key.key;
      if (action.captureId) state.vars[action.captureId] = key.id;
      return;
    }
    case 'addFault':
      // the scenario's rule is any JSON object; the control plane checks it (400 names what is wrong)
      return void (await control(state, ROUTES.addFault, { body: action.fault as FaultRuleInput }));
    case 'addDeliveryFault': {
      // the scenario's words (reorder, latency: durations) are the control plane's reorderMs, latencyMs
      const { action: _action, reorder, latency, ...rule } = action;
      const body = {
        target: 'delivery' as const,
        ...rule,
        ...(reorder !== undefined ? { reorderMs: reorder } : {}),
        ...(latency !== undefined ? { latencyMs: latency } : {}),
      };
      return void (await control(state, ROUTES.addFault, { body }));
    }
    case 'clearFaults':
      return void (await control(state, ROUTES.clearFaults, {}));
    case 'exhaustRateLimit':
      return void (await control(state, ROUTES.exhaustRateLimit, { body: { workspaceId: action.workspaceId } }));
    case 'reset':
      return void (await control(state, ROUTES.reset, {}));
    case 'setSuspension': {
      const { action: _action, ...settings } = action;
      return void (await control(state, ROUTES.configureSuspension, { body: settings }));
    }
    case 'readOtp': {
      const codes = await control(state, ROUTES.verifications, { query: { target: action.target } });
      if (!codes[0]) throw new Error(`no verification code for ${action.target}`);
      state.vars[action.capture] = codes[0].code;
      return;
    }
    case 'get': {
      const data = await controlGet(state, action.path);
      for (const [name, path] of Object.entries(action.capture)) {
        const value = readPath(data, path);
        if (value === undefined) throw new Error(`capture ${name}: nothing at ${path} of ${action.path}`);
        state.vars[name] = value;
      }
      return;
    }
    case 'findDeparture':
      state.vars[action.capture] = await findDeparture(state, action.workspaceId, action.minSeats);
      return;
  }
}

/** A departure of an active product, in the future, with enough seats: the first in id order. */
async function findDeparture(state: RunState, workspaceId: string, minSeats: number): Promise<string> {
  const exported = await control(state, ROUTES.exportWorkspace, { params: { id: workspaceId } });
  // the export's rows are the collections' records (src/resources/departures, products)
  const departures = (exported.departures ?? []) as { id: string; productId: string; status: string; seatsLeft: number; startDate: string }[];
  const products = (exported.products ?? []) as { id: string; status: string }[];
  const clock = await control(state, ROUTES.clock, {});
  const today = clock.now.slice(0, 10);
  const active = new Set(products.filter((p) => p.status === 'active').map((p) => p.id));
  const found = departures
    .filter((d) => active.has(d.productId) && ['scheduled', 'guaranteed'].includes(d.status) && d.seatsLeft >= minSeats && d.startDate > today)
    .sort((a, b) => (a.id < b.id ? -1 : 1))[0];
  if (!found) throw new Error(`no bookable departure with ${minSeats} seats in ${workspaceId}`);
  return found.id;
}

/** One route of the control plane's table, through the typed client; a refusal names the route and the answer. */
async function control<R extends ControlRoute>(state: RunState, route: R, input: RouteInput<R>): Promise<RouteData<R>> {
  state.client ??= new ControlClient({ url: state.target.url, ...(state.target.token ? { token: state.target.token } : {}) });
  try {
    // every call here passes its input, so the client's optional-input form is not needed
    const request = state.client.request.bind(state.client) as <T extends ControlRoute>(route: T, input: RouteInput<T>) => Promise<RouteData<T>>;
    return await request(route, input);
  } catch (err) {
    if (!(err instanceof ControlPlaneError)) throw err;
    throw new Error(
      `control ${route.method} ${pathOf(route, input.params as Record<string, unknown> | undefined)}: ${err.status} ${brief(JSON.stringify(err.body))}`,
    );
  }
}

/** A `get` step: any control path the scenario names (read-only), its `data`. */
async function controlGet(state: RunState, path: string): Promise<unknown> {
  const headers: Record<string, string> = {};
  if (state.target.token) headers['x-sandbox-token'] = state.target.token;
  const res = await fetch(`${state.target.url}/__sandbox${path}`, { method: 'GET', headers });
  const text = await res.text();
  if (!res.ok) throw new Error(`control GET ${path}: ${res.status} ${brief(text)}`);
  return (JSON.parse(text) as { data: unknown }).data;
}

async function builtinVars(state: RunState): Promise<Vars> {
  const workspaces = await control(state, ROUTES.workspaces, {});
  const vars: Vars = {};
  for (const w of workspaces) {
    const usable = w.keys.filter((k) => k.key && k.status === 'active');
    vars[`workspaces.${w.mode}`] ??= w.id;
    const full = usable.find((k) => k.scopes === null);
    const read = usable.find((k) => k.scopes?.length === 1 && k.scopes[0] === 'products:read');
    if (full) vars[`keys.${w.mode}`] ??= full.key;
    if (read) vars[`keys.${w.mode}Read`] ??= read.key;
  }
  return vars;
}

function describe(step: Exclude<Step, { repeat: number }>): string {
  if ('request' in step) return `${step.request.method} ${step.request.path}${step.expect?.status !== undefined ? ` -> ${String(step.expect.status)}` : ''}`;
  if ('control' in step) return `control: ${step.control.action}`;
  if ('receiver' in step) return `receiver ${step.receiver.name} answering ${step.receiver.respond.join(', ')}`;
  return `wait for ${step.waitForDelivery.type} at ${step.waitForDelivery.receiver}`;
}

const brief = (text: string) => (text.length > 160 ? `${text.slice(0, 157)}...` : text);
