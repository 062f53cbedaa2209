import { firstBookableDeparture } from '../resources/departures/bookable.ts';
import { createSandbox, SandboxError, type Sandbox } from '../sandbox.ts';
import type { FixtureWorkspaceView as FixtureWorkspace } from '../fixtures/fixture-workspaces.ts';
import { DEFAULT_SCENARIOS_DIR, DEFAULT_STOP_TIMEOUT_MS, type SandboxOptions } from '../config.ts';
import type { ClockOrigin } from '../core/saved-clock.ts';
import type { StopSummary } from '../http/drain.ts';
import { formatDuration } from '../inspector/time/duration.ts';
import { plural } from './format.ts';
import { bold, cyan, dim, errorMessage, fail, green, printJson } from './output.ts';
import { inspectorUrl } from './inspector-url.ts';
import { armStopDeadline, endNow } from './stop-deadline.ts';
import { holdYoungGeneration, limitHeapGrowth } from './young-generation.ts';

export interface StartFlags {
  port: number;
  host: string;
  /** --allowed-host, repeatable */
  allowedHost?: string[];
  data: string;
  inMemory?: boolean;
  /** --recover: set an unmatched journal aside instead of refusing to start */
  recover?: boolean;
  fixtures?: string;
  /** --default-workspace (or $SANDBOX_WORKSPACE): an id or a name */
  defaultWorkspace?: string;
  seed?: number;
  clock: string;
  /** --clock-start: ISO 8601 */
  clockStart?: string;
  /** --fresh-clock: set aside the clock saved in the data file */
  freshClock?: boolean;
  rateLimits: boolean;
  internalKey?: string;
  controlToken?: string;
  json?: boolean;
  strict?: boolean;
  strictWebhookUrls?: boolean;
  webhookRetryScale?: number;
  /** seconds */
  /** milliseconds (the option reads a duration) */
  webhookTimeout?: number;
  webhookMaxPending?: number;
  suspension?: boolean;
  /** created workspaces at most */
  maxWorkspaces?: number;
  /** GET /__sandbox/stream clients at once */
  maxStreamClients?: number;
  /** the request log's captures, all together, in MB */
  requestCaptureMb?: number;
  /** named snapshots per scope, and MiB of them all */
  maxSnapshots?: number;
  maxSnapshotMib?: number;
  watch?: boolean;
  scenarios?: string;
  /** open the dashboard instead of printing the banner (docs/dashboard.md) */
  dashboard?: boolean;
  /** open the browser inspector once serving (docs/inspector.md) */
  open?: boolean;
  /** --stop-timeout, in milliseconds */
  stopTimeout?: number;
  /** --flush-grace, in milliseconds (start only: FLUSH_GRACE_MS by default) */
  flushGrace?: number;
  /** --from-bundle: start on a failure bundle's state and clocks (docs/cli.md, "The failure bundle") */
  fromBundle?: string;
  /** set with --from-bundle when --clock was not given: the clock runs in the bundle's mode */
  clockFromBundle?: boolean;
}

export function startOptions(flags: StartFlags): SandboxOptions {
  if (flags.clock !== 'real' && flags.clock !== 'manual') throw new SandboxError(`--clock must be real or manual, not "${flags.clock}"`);
  return {
    port: flags.port,
    host: flags.host,
    ...(flags.allowedHost?.length ? { allowedHosts: flags.allowedHost } : {}),
    storage: flags.inMemory || !flags.data ? 'memory' : flags.data,
    ...(flags.fixtures ? { fixturesDir: flags.fixtures } : {}),
    ...(flags.defaultWorkspace ? { defaultWorkspace: flags.defaultWorkspace } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    clock: flags.clock,
    ...(flags.clockStart !== undefined ? { clockStart: flags.clockStart } : {}),
    ...(flags.freshClock ? { freshClock: true } : {}),
    enforceRateLimits: flags.rateLimits,
    ...(flags.internalKey ? { internalApiKey: flags.internalKey } : {}),
    ...(flags.controlToken ? { controlToken: flags.controlToken } : {}),
    ...(flags.strict ? { strict: true } : {}),
    ...(flags.strictWebhookUrls ? { strictWebhookUrls: true } : {}),
    ...(flags.webhookRetryScale !== undefined ? { webhookRetryScale: flags.webhookRetryScale } : {}),
    ...(flags.webhookTimeout !== undefined ? { webhookTimeoutMs: flags.webhookTimeout } : {}),
    ...(flags.webhookMaxPending !== undefined ? { webhookMaxPending: flags.webhookMaxPending } : {}),
    ...(flags.suspension ? { suspension: true } : {}),
    ...(flags.maxWorkspaces !== undefined ? { maxWorkspaces: flags.maxWorkspaces } : {}),
    ...(flags.recover ? { recover: true } : {}),
    ...(flags.maxStreamClients !== undefined ? { maxStreamClients: flags.maxStreamClients } : {}),
    ...(flags.requestCaptureMb !== undefined ? { requestCaptureBytes: flags.requestCaptureMb * 1024 * 1024 } : {}),
    ...(flags.stopTimeout !== undefined ? { stopTimeoutMs: flags.stopTimeout } : {}),
    ...(flags.maxSnapshots !== undefined ? { maxSnapshots: flags.maxSnapshots } : {}),
    ...(flags.maxSnapshotMib !== undefined ? { maxSnapshotBytes: flags.maxSnapshotMib * 1024 * 1024 } : {}),
  };
}

export async function runStart(flags: StartFlags): Promise<Sandbox> {
  // Handlers go in before anything is printed: a script that reads the banner
  // (or the --json line) may signal at once, and must still get a clean stop.
  let sandbox: Sandbox | undefined;
  let stopWatching: (() => Promise<void>) | undefined;
  let stopping = false;
  let shownWarnings = 0;
  const shutdown = (exitCode = 0) => {
    // a second signal does not wait for the first stop (stop-deadline.ts)
    if (stopping) return endNow('a second signal came while stopping');
    stopping = true;
    // the requests in flight get --stop-timeout, the flush its own grace after it (stop-deadline.ts)
    const exit = armStopDeadline(flags.stopTimeout ?? DEFAULT_STOP_TIMEOUT_MS, flags.flushGrace);
    if (!sandbox) return exit(exitCode); // still starting: nothing acknowledged yet
    Promise.resolve(stopWatching?.())
      .then(() => sandbox!.stop())
      .then(
        (summary) => {
          for (const warning of sandbox!.warnings.slice(shownWarnings)) process.stderr.write(`sandbox: ${warning}\n`);
          printStopped(summary, flags);
          exit(exitCode);
        },
        (err) => {
          process.stderr.write(`sandbox: could not stop cleanly: ${errorMessage(err).split('\n')[0]}\n`);
          exit(1);
        },
      );
  };
  process.on('SIGINT', () => shutdown());
  process.on('SIGTERM', () => shutdown());
  const fromBundle = flags.fromBundle ? await import('./start-bundle.ts') : null;
  const bundle = fromBundle ? await fromBundle.readStartBundle(flags.fromBundle!) : null;
  if (bundle && flags.clockFromBundle) flags.clock = bundle.clock.mode;
  sandbox = await openCliSandbox(startOptions(flags), flags);
  if (fromBundle && bundle) await fromBundle.startOnBundle(sandbox, bundle, flags.fromBundle!);
  // POST /__sandbox/stop (`sandbox stop`) takes the same path as SIGTERM
  sandbox.context.stopRequest.handler = () => shutdown();
  for (const warning of sandbox.warnings) process.stderr.write(`sandbox: ${warning}\n`);
  shownWarnings = sandbox.warnings.length;
  if (flags.watch) {
    const { watchSandbox } = await import('../watch.ts');
    stopWatching = await watchSandbox(sandbox, {
      scenariosDir: flags.scenarios ?? DEFAULT_SCENARIOS_DIR,
      log: (line) => process.stderr.write(`${line}\n`),
    });
  }
  if (flags.json) printJson(startSummary(sandbox));
  else if (flags.dashboard) await openDashboard(sandbox, shutdown);
  else process.stdout.write(banner(sandbox, flags));
  // not awaited: the sandbox serves whether a browser opens or not; a failure is one line on stderr
  if (flags.open) void import('./open-browser.ts').then(({ openOrSay }) => openOrSay(sandboxInspectorUrl(sandbox)));
  return sandbox;
}

/**
 * The exit line: how many requests in flight the stop let finish (drained), answered 503 at its
 * deadline (cut), and refused because they came after it began. With --json, a second JSON line
 * on stdout after the ready line; otherwise one line on stderr, where the banner's reader does
 * not parse it.
 */
export function printStopped(summary: StopSummary, flags: Pick<StartFlags, 'json'>): void {
  if (flags.json) return printJson({ stopped: true, ...summary });
  const refused = summary.refused > 0 ? `, refused ${summary.refused}` : '';
  process.stderr.write(`sandbox: stopped; drained ${plural(summary.drained, 'request')}, cut ${summary.cut}${refused}\n`);
}

/**
 * --dashboard: the dashboard (loaded only now) reads this sandbox's control
 * plane like any other client; q stops the sandbox as Ctrl+C would. Without a
 * terminal it prints one line with the URL, then plain log lines.
 */
async function openDashboard(sandbox: Sandbox, shutdown: (exitCode?: number) => void): Promise<void> {
  if (!process.stdout.isTTY)
    process.stdout.write(`travel-commerce-sandbox is serving ${sandbox.url} (no terminal: logging one line per request, delivery and event)\n`);
  const { openStartDashboard } = await import('./dashboard.ts');
  await openStartDashboard(sandbox.url, sandbox.controlToken, shutdown);
}

/**
 * A start that may not write its database, its lock or their folder (`Cannot lock
 * database: ... EACCES`): the two ways to start anyway. A start in memory never writes, so the
 * advice appears only where a file was being opened.
 */
export function withWriteAdvice(message: string): string {
  if (!/^Cannot (lock|open) database\b/.test(message) || !/\b(EACCES|EPERM|EROFS)\b/.test(message)) return message;
  return `${message}; the sandbox may not write there: start with --in-memory, or --data <a file in a folder you can write>`;
}

/**
 * createSandbox for `start` and `exec`: V8's young generation held small while
 * it starts and its old generation's growth bounded (young-generation.ts), one
 * line on failure, and refused when the fixtures define no workspace (no key
 * could call it).
 */
export async function openCliSandbox(options: SandboxOptions, flags: Pick<StartFlags, 'fixtures'>): Promise<Sandbox> {
  let sandbox: Sandbox;
  limitHeapGrowth();
  const releaseYoungGeneration = holdYoungGeneration();
  try {
    sandbox = await createSandbox(options);
  } catch (err) {
    fail(withWriteAdvice(errorMessage(err)));
  } finally {
    releaseYoungGeneration();
  }
  const empty = emptyFixtures(sandbox, flags);
  if (empty) {
    await sandbox.stop();
    fail(empty);
  }
  return sandbox;
}

export function emptyFixtures(sandbox: Sandbox, flags: Pick<StartFlags, 'fixtures'>): string | null {
  if (sandbox.workspaces.length > 0) return null;
  return `--fixtures ${flags.fixtures ?? '(bundled)'} defines no workspace, so no API key could call the sandbox; point it at a directory with fixture files (see fixtures/*.json)`;
}

/** The browser inspector's URL, with the control token in its #fragment when there is one (docs/inspector.md). */
export function sandboxInspectorUrl(sandbox: Pick<Sandbox, 'url' | 'controlToken'>): string {
  return inspectorUrl(sandbox.url, sandbox.controlToken);
}

/**
 * The --json ready line: {url, controlUrl, controlToken?, inspectorUrl, clock, workspaces: [{id, name, mode, default, keys:
 * [{id, name, key, scopes}]}]} (`default`: the default workspace, as GET /__sandbox/workspaces marks it); clock is what the start did with the clock saved in the data file (ClockOrigin). controlToken is there when the sandbox has one (a non-loopback
 * host), since a script cannot read it from the banner; inspectorUrl then carries it in its #fragment.
 */
export function startSummary(sandbox: Sandbox) {
  const defaultId = sandbox.defaultWorkspace?.id;
  return {
    url: sandbox.url,
    controlUrl: sandbox.controlUrl,
    ...(sandbox.controlToken ? { controlToken: sandbox.controlToken } : {}),
    inspectorUrl: sandboxInspectorUrl(sandbox),
    clock: sandbox.clockOrigin,
    workspaces: sandbox.workspaces.map((w) => ({
      id: w.id,
      name: w.name,
      mode: w.mode,
      default: w.id === defaultId,
      keys: w.keys.map((k: FixtureWorkspace['keys'][number]) => ({ id: k.id, name: k.name, key: k.key, scopes: k.scopes })),
    })),
  };
}

/** What `sandbox start` prints for people: the URL, each workspace with its keys (and, for a sandbox-mode one, a bookable departure), the inspector. */
function banner(sandbox: Sandbox, flags: StartFlags): string {
  const lines = [
    '',
    `${green('●')} ${bold('travel-commerce-sandbox')} is serving ${cyan(sandbox.url)}`,
    dim(
      `  data: ${flags.inMemory ? 'in memory' : sandbox.store.path}   clock: ${clockLine(sandbox.clockOrigin)}   rate limits: ${flags.rateLimits ? 'enforced' : 'reported, not enforced'}`,
    ),
    '',
  ];
  for (const w of sandbox.workspaces) {
    lines.push(`  ${bold(w.name)}  ${dim(w.id)}  ${w.mode === 'live' ? 'live' : 'sandbox'}`);
    for (const k of w.keys) {
      const scope = k.scopes === null ? 'full access' : k.scopes.join(' ');
      lines.push(`    ${scope.padEnd(16)} ${k.key}`);
    }
    // the README's key books here: offer a departure a first booking can take
    const bookable = w.mode === 'sandbox' ? firstBookableDeparture(sandbox.store, w.id, sandbox.clock.isoIn(w.id).slice(0, 10)) : null;
    if (bookable)
      lines.push(
        `    ${'bookable'.padEnd(16)} ${bookable.departure.id}  ${dim(`${bookable.productTitle}, ${bookable.departure.startDate}, ${bookable.departure.seatsLeft} seats left`)}`,
      );
    lines.push('');
  }
  const defaultWorkspace = sandbox.defaultWorkspace;
  if (defaultWorkspace)
    lines.push(`  default        ${bold(defaultWorkspace.name)}  ${dim('where commands, MCP tools and the inspector work unless told (--default-workspace)')}`);
  lines.push(`  inspector      ${cyan(sandboxInspectorUrl(sandbox))}`);
  lines.push(`  control plane  ${sandbox.controlUrl}   OpenAPI  ${sandbox.controlUrl}/openapi.json`);
  if (sandbox.controlToken) lines.push(`  control token  ${sandbox.controlToken}  (send it as X-Sandbox-Token)`);
  lines.push(dim('  Ctrl+C stops it; writes are flushed first.'), '');
  return `${lines.join('\n')}\n`;
}

/**
 * The banner's clock: its mode, and where it comes from when a data file saved one
 * (docs/storage.md, "The clock is saved"), e.g. `real +3d, restored` or
 * `manual at 2026-01-17T09:00:00.000Z, restored (later than --clock-start, which it wins over; --fresh-clock starts there)`.
 */
export function clockLine(origin: ClockOrigin): string {
  const at = origin.mode === 'manual' ? `manual at ${origin.now}` : origin.offsetMs === 0 ? 'real' : `real ${offset(origin.offsetMs)}`;
  switch (origin.source) {
    case 'restored':
      return `${at}, restored${origin.overrodeStart ? ' (later than --clock-start, which it wins over; --fresh-clock starts there)' : ''}`;
    case 'configured-later':
      return `${at} (${origin.savedMode === origin.mode ? '--clock-start' : 'real time'} is later than the saved ${origin.savedMode} clock)`;
    case 'fresh':
      return origin.discarded ? `${at}, fresh (--fresh-clock: the saved clock set aside)` : at;
  }
}

const offset = (ms: number) => `${ms < 0 ? '-' : '+'}${formatDuration(Math.round(Math.abs(ms) / 1000) * 1000)}`;
