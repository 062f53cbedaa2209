import { appendFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_STOP_TIMEOUT_MS } from '../config.ts';
import { sendText } from '../control/http-send.ts';
import { controlClient, DEFAULT_SANDBOX_URL, report, type ControlFlags } from './control.ts';
import { DETACHED_RECORD, type DetachedSandbox, detachedSandboxes, forgetDetached, isRunning } from './detached-record.ts';
import { fail } from './output.ts';
import { FLUSH_GRACE_MS } from './stop-deadline.ts';

/**
 * `sandbox stop` and `sandbox wait`: the two ends of a sandbox started in the
 * background (`start --detach`, a container, `sandbox start &`), for shell CI
 * (docs/cli.md, "In the background"). Both find it by --port on this machine,
 * --url or $SANDBOX_URL; else by what `start --detach` recorded for this folder
 * (./detached-record.ts).
 */
export interface LifecycleFlags extends Omit<ControlFlags, 'workspace' | 'url'> {
  /** --url: no default of its own, so that `stop` can tell a URL it was given from none */
  url?: string;
  port?: number;
  json?: boolean;
  /** `wait`: milliseconds */
  timeout?: number;
  /** `stop`: write the run report (GET /__sandbox/report) to this file before stopping */
  report?: string;
  reportFormat?: string;
  /** `stop`: write the failure bundle (GET /__sandbox/bundle) to this file before stopping */
  bundle?: string;
}

const POLL_MS = 100;
/** what `stop` allows past the sandbox's own deadline (drain, then flush) before it says the process is stuck */
const STOP_MARGIN_MS = 5_000;

export { isRunning };

const describe = (s: DetachedSandbox) => `${s.url}, process ${s.pid}`;

/**
 * The sandbox `stop` and `wait` are pointed at: --port, --url, $SANDBOX_URL; else the one
 * `start --detach` started from this folder. `stop` looks no further: it never stops whatever
 * answers on the default port, which may be another project's sandbox. `wait`, which stops
 * nothing, then waits on the default address, where a plain `sandbox start &` listens.
 */
function target(flags: LifecycleFlags, command: 'stop' | 'wait'): LifecycleFlags & { url: string } {
  if (flags.port !== undefined) return { ...flags, url: `http://127.0.0.1:${flags.port}` };
  const given = flags.url ?? (process.env.SANDBOX_URL || undefined);
  if (given) return { ...flags, url: given };
  const { running, gone } = detachedSandboxes();
  if (running.length === 1) return { ...flags, url: running[0]!.url };
  if (running.length > 1)
    fail(
      `${running.length} sandboxes started from this folder with \`sandbox start --detach\` are running (${running.map(describe).join('; ')}); name one with --url or --port`,
    );
  if (command === 'wait') return { ...flags, url: DEFAULT_SANDBOX_URL };
  if (gone.length > 0)
    fail(`the sandbox \`sandbox start --detach\` started from this folder (${describe(gone.at(-1)!)}) is no longer running; nothing to stop`);
  return fail(
    `no sandbox to stop: none started from this folder with \`sandbox start --detach\` is recorded (${DETACHED_RECORD}); name one with --url or --port, or set SANDBOX_URL`,
  );
}

/**
 * POST /__sandbox/stop: the sandbox stops as on SIGTERM (drain, flush,
 * exit). When its process runs on this machine, returns once it has exited,
 * so every acknowledged write is in its file; otherwise (a container) once it
 * takes no more connections.
 */
export async function runStop(given: LifecycleFlags): Promise<void> {
  if (given.report && !['json', 'junit'].includes(given.reportFormat ?? 'json')) fail(`--report-format must be json or junit, not "${given.reportFormat}"`);
  const flags = target(given, 'stop');
  const client = await controlClient(flags);
  let answer;
  try {
    const bundle = flags.bundle ? await writeStopBundle(client, flags.bundle) : undefined;
    if (flags.report) await writeReport(client, flags.report, flags.reportFormat ?? 'json', bundle);
    else if (bundle) await appendBundleHowTo(bundle);
    answer = await client.stop();
  } catch (err) {
    if (err instanceof Error && err.name === 'SandboxNotRunningError') fail(`${err.message}; nothing to stop`);
    throw err;
  }
  forgetDetached(flags.url);
  // the same machine: its pid is one we can watch (a stop may be over already)
  const local = answer.hostname === hostname();
  const deadlineMs = (answer.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS) + FLUSH_GRACE_MS + STOP_MARGIN_MS;
  const gone = local ? await until(() => !isRunning(answer.pid), deadlineMs) : await until(async () => !(await answers(flags.url)), deadlineMs);
  // a container on the host's network has its hostname, and its pid may name another process here
  if (!gone && local && !(await answers(flags.url)))
    return report(
      flags,
      { stopped: true, url: flags.url, pid: answer.pid, exited: false },
      () => `stopped the sandbox at ${flags.url} (it takes no more connections)`,
    );
  if (!gone)
    fail(
      `the sandbox at ${flags.url} (process ${answer.pid}) is still ${local ? 'running' : 'answering'} ${Math.round(deadlineMs / 1000)} s after it was asked to stop; see its log, or kill ${answer.pid}`,
    );
  report(flags, { stopped: true, url: flags.url, pid: answer.pid, exited: local }, () =>
    local
      ? `stopped the sandbox at ${flags.url} (process ${answer.pid} has exited; its data is flushed)`
      : `stopped the sandbox at ${flags.url} (it takes no more connections; its process, ${answer.pid} on ${answer.hostname}, ends after its flush)`,
  );
}

/**
 * The run report of a sandbox that ran in the background, as `sandbox exec --report` writes it:
 * the summary on stderr, the file as asked. Read just before the stop, when every request is in.
 */
async function writeReport(client: Awaited<ReturnType<typeof controlClient>>, file: string, format: string, bundle?: string): Promise<void> {
  const report = await client.report();
  const [{ appendStepSummary, junitXml, summaryLines }, { INFORMATIONAL_WARNINGS }] = await Promise.all([
    import('./run-report.ts'),
    import('../core/warnings.ts'),
  ]);
  // what --strict would not refuse is counted as allowed, as `exec` counts it (core/warnings.ts)
  const allowed = INFORMATIONAL_WARNINGS;
  try {
    writeFileSync(file, format === 'junit' ? junitXml(report, allowed) : `${JSON.stringify(report, null, 2)}\n`);
  } catch (err) {
    fail(`cannot write the report to ${file}: ${(err as Error).message}; the sandbox was not stopped`);
  }
  const lines = [...summaryLines(report, allowed), `report: ${file} (${format})`];
  const unwritten = appendStepSummary(report, { allowed, title: 'sandbox stop', ...(bundle ? { bundle } : {}) });
  if (unwritten) lines.push(unwritten);
  process.stderr.write(`${lines.join('\n')}\n`);
}

/**
 * `stop --bundle`: the failure bundle (docs/cli.md, "The failure bundle") read just before the stop,
 * as the report is; a file that cannot be written stops nothing, so the run can be saved again.
 */
async function writeStopBundle(client: Awaited<ReturnType<typeof controlClient>>, file: string): Promise<string> {
  const [bytes, { writeBundleFile }, { openLine }, { formatBytes }] = await Promise.all([
    client.bundle(),
    import('../bundle/file.ts'),
    import('./bundle.ts'),
    import('./state.ts'),
  ]);
  await writeBundleFile(file, bytes).catch((err: Error) => fail(`cannot write the bundle to ${file}: ${err.message}; the sandbox was not stopped`));
  process.stderr.write(`bundle: ${file} (${formatBytes(bytes.length)}); open it with \`${openLine(file)}\`\n`);
  return file;
}

/** Without --report, the job summary (GITHUB_STEP_SUMMARY) still says how to open the bundle. */
async function appendBundleHowTo(file: string): Promise<void> {
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (!summary) return;
  const { bundleHowTo } = await import('../report/job-summary.ts');
  try {
    appendFileSync(summary, `${['### Sandbox run: sandbox stop', '', ...bundleHowTo(file)].join('\n')}\n`);
  } catch (err) {
    process.stderr.write(`sandbox: cannot append the job summary to ${summary}: ${(err as Error).message}\n`);
  }
}

/** GET /__sandbox/health until it answers 200, for up to --timeout. */
export async function runWait(given: LifecycleFlags): Promise<void> {
  const flags = target(given, 'wait');
  const timeoutMs = flags.timeout ?? 30_000;
  const client = await controlClient(flags);
  let last = 'no answer yet';
  const ready = await until(async () => {
    try {
      await client.health();
      return true;
    } catch (err) {
      if (err instanceof Error && err.name === 'ControlPlaneError' && (err as Error & { status?: number }).status === 401) {
        fail(`the sandbox at ${flags.url} answers, but wants its control token: pass --token or set SANDBOX_CONTROL_TOKEN`);
      }
      last = err instanceof Error ? err.message : String(err);
      return false;
    }
  }, timeoutMs);
  if (!ready) fail(`no sandbox was ready at ${flags.url} within ${timeoutMs / 1000} s (last: ${last}); is it starting? its log says why not`);
  report(flags, { ready: true, url: flags.url }, () => `the sandbox at ${flags.url} is ready`);
}

async function until(check: () => boolean | Promise<boolean>, deadlineMs: number): Promise<boolean> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(POLL_MS);
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    // any answer will do; node:http, not fetch (undici), as the control client (src/control/http-send.ts)
    const res = await sendText(new URL(`${url}/__sandbox/health`), { method: 'GET', headers: {}, signal: AbortSignal.timeout(2_000) });
    await res.text().catch(() => ''); // read, so the socket does not hold the process open
    return true;
  } catch {
    return false;
  }
}
