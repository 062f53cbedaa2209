import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import type { Sandbox } from '../sandbox.ts';
import { INFORMATIONAL_WARNINGS, WARNING_CODES } from '../core/warnings.ts';
import { plural } from './format.ts';
import { bold, fail, yellow } from './output.ts';
import { appendStepSummary, junitXml, summaryLines } from './run-report.ts';
import { openCliSandbox, startOptions, type StartFlags } from './start.ts';

export interface ExecFlags extends Omit<StartFlags, 'data' | 'json'> {
  data?: string;
  /** sandbox or live; without it, the default workspace's key */
  key?: string;
  /** one created workspace per parallel test worker */
  workers?: number;
  /** write the run report to this file (docs/cli.md, "The run report") */
  report?: string;
  reportFormat: string;
  /** exit 1 when any request was accepted only by guessing (and the command itself succeeded) */
  failOnWarning?: boolean;
  /** --allow-warning, repeatable: codes --fail-on-warning and the JUnit report accept */
  allowWarning?: string[];
  /** a run that sent no request to /v1 passes --report and --fail-on-warning */
  allowEmpty?: boolean;
  /** write the failure bundle here, always (docs/cli.md, "The failure bundle") */
  bundle?: string;
  /** ... or only when exec exits non-zero */
  bundleOnFailure?: string;
}

const REPORT_FORMATS = ['json', 'junit'];

/**
 * `sandbox exec -- <command...>` for CI: a private sandbox (in memory and on a
 * free port unless told otherwise) for the life of one command, whose exit
 * code becomes ours. SANDBOX_API_KEY is the sandbox workspace's full-access
 * key by default, because that is the workspace a customer's CI would use.
 */
export async function runExec(command: string[], flags: ExecFlags): Promise<void> {
  if (flags.key !== undefined && flags.key !== 'sandbox' && flags.key !== 'live') fail(`--key must be sandbox or live, not "${flags.key}"`);
  if (!REPORT_FORMATS.includes(flags.reportFormat)) fail(`--report-format must be json or junit, not "${flags.reportFormat}"`);
  allowedWarnings(flags.allowWarning); // a typo is refused before the command runs, not after
  const sandbox = await openCliSandbox(startOptions({ ...flags, data: flags.data ?? '', inMemory: flags.inMemory || !flags.data }), flags);
  // the default workspace's key (src/core/default-workspace.ts), unless --key asks for the other mode
  const chosen = sandbox.defaultWorkspace;
  const workspace =
    sandbox.workspaces.find((w) => w.id === chosen?.id && (flags.key ?? w.mode) === w.mode) ??
    sandbox.workspaces.find((w) => w.mode === flags.key) ??
    sandbox.workspaces[0]!;
  const key = workspace.keys.find((k) => k.scopes === null) ?? workspace.keys[0]!;
  const env = {
    ...process.env,
    SANDBOX_URL: sandbox.url,
    SANDBOX_API_KEY: key.key,
    // the key's id, which `keys revoke`, `ratelimit exhaust --key` and GET /__sandbox/workspaces name it by
    SANDBOX_API_KEY_ID: key.id,
    SANDBOX_CONTROL_URL: sandbox.controlUrl,
    SANDBOX_WORKSPACE_ID: workspace.id,
    ...(sandbox.controlToken ? { SANDBOX_CONTROL_TOKEN: sandbox.controlToken } : {}),
    ...(await workerEnv(sandbox, flags.workers ?? 0, workspace.id)),
  };
  const [file, ...args] = command;
  const child = spawn(file!, args, { stdio: 'inherit', env });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  let ran = true;
  const code = await new Promise<number>((resolve) => {
    child.on('error', (err: NodeJS.ErrnoException) => {
      ran = false;
      process.stderr.write(`sandbox: cannot run "${file}": ${err.code === 'ENOENT' ? 'command not found' : err.message}\n`);
      resolve(127);
    });
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? 128 + (signal ? (constants.signals[signal] ?? 1) : 1)));
  });
  const exitCode = ran ? await reportRun(sandbox, flags, code, command) : await bundleAlone(sandbox, flags, code, command);
  const stopped = await sandbox.stop();
  // the command has exited, so a request still in flight is one it left behind (a background process): say what became of it
  if (stopped.drained + stopped.cut > 0)
    process.stderr.write(`sandbox: stopped; drained ${plural(stopped.drained, 'request')} the command left running, cut ${stopped.cut} (--stop-timeout)\n`);
  process.exit(exitCode);
}

/**
 * The run report at the end (docs/cli.md, "The run report"): the summary on stderr (never mixed
 * with the command's stdout), the file if asked, the GitHub job summary when
 * GITHUB_STEP_SUMMARY is set; returns the exit code. The command's own
 * failure wins; a run that passed fails on --fail-on-warning (but for the
 * --allow-warning codes), and, under --report or --fail-on-warning, when it
 * sent nothing to /v1 (a gate that checked nothing must not pass).
 */
async function reportRun(sandbox: Sandbox, flags: ExecFlags, code: number, command: string[]): Promise<number> {
  const report = sandbox.report();
  // what --strict would not refuse never fails a run (core/warnings.ts): counted as allowed
  const allowed = new Set([...allowedWarnings(flags.allowWarning), ...INFORMATIONAL_WARNINGS]);
  const lines = summaryLines(report, allowed);
  if (flags.report) {
    try {
      writeFileSync(flags.report, flags.reportFormat === 'junit' ? junitXml(report, allowed) : `${JSON.stringify(report, null, 2)}\n`);
      lines.push(`report: ${flags.report} (${flags.reportFormat})`);
    } catch (err) {
      lines.push(`sandbox: cannot write the report to ${flags.report}: ${(err as Error).message}`);
      if (code === 0) code = 1;
    }
  }
  const gated = Boolean(flags.report || flags.failOnWarning);
  if (report.requests === 0) {
    const fails = gated && !flags.allowEmpty && code === 0;
    lines.push(yellow(bold(emptyRunLine(sandbox.url, fails))));
    if (fails) code = 1;
  }
  const guessed = report.warnings.filter((w) => !allowed.has(w.code));
  const count = guessed.reduce((sum, w) => sum + w.count, 0);
  if (flags.failOnWarning && count > 0 && code === 0) {
    lines.push(
      `sandbox: --fail-on-warning: ${plural(count, 'warning')} (${guessed.map((w) => w.code).join(', ')}); exit 1${(flags.allowWarning ?? []).length === 0 ? '; accept a code with --allow-warning <code>' : ''}`,
    );
    code = 1;
  }
  const bundle = await writeBundle(sandbox, flags, command, code);
  if (bundle) {
    lines.push(bundle.line);
    if (!bundle.written && code === 0) code = 1;
  }
  const unwritten = appendStepSummary(report, { allowed, exitCode: code, title: 'sandbox exec', ...(bundle?.written ? { bundle: bundle.file } : {}) });
  if (unwritten) lines.push(unwritten);
  process.stderr.write(`${lines.join('\n')}\n`);
  return code;
}

/**
 * The failure bundle (docs/cli.md, "The failure bundle"): --bundle always, --bundle-on-failure when
 * exec is about to exit non-zero; written before the sandbox stops, with the run's final exit code.
 */
async function writeBundle(sandbox: Sandbox, flags: ExecFlags, command: string[], code: number) {
  const file = flags.bundle ?? (code !== 0 ? flags.bundleOnFailure : undefined);
  if (file === undefined) return null;
  const { saveExecBundle } = await import('./bundle.ts');
  return { file, ...(await saveExecBundle(sandbox, file, { command, exitCode: code })) };
}

/** A command that could not run (127) has no report; its bundle, asked for, says as much as there is. */
async function bundleAlone(sandbox: Sandbox, flags: ExecFlags, code: number, command: string[]): Promise<number> {
  const bundle = await writeBundle(sandbox, flags, command, code);
  if (bundle) process.stderr.write(`${bundle.line}\n`);
  return code;
}

/** Said loudly: the usual cause is a test setup that started a sandbox of its own instead of using SANDBOX_URL. */
const emptyRunLine = (url: string, fails: boolean) =>
  `sandbox: the command sent 0 requests to /v1 at ${url}, so this report checked nothing; did its setup start a sandbox of its own instead of using SANDBOX_URL? (README, "Parallel test workers")${fails ? '; exit 1 (--allow-empty to accept an empty run)' : ''}`;

/** --allow-warning, repeatable or comma-separated; an unknown code is a typo, refused at once. */
function allowedWarnings(values: string[] | undefined): Set<string> {
  const codes = (values ?? [])
    .flatMap((v) => v.split(','))
    .map((c) => c.trim().toUpperCase())
    .filter(Boolean);
  for (const code of codes) {
    if (!Object.hasOwn(WARNING_CODES, code)) fail(`--allow-warning: no warning is called "${code}"; the codes: ${Object.keys(WARNING_CODES).join(', ')}`);
  }
  return new Set(codes);
}

/** SANDBOX_API_KEY_1..n, SANDBOX_API_KEY_ID_1..n and SANDBOX_WORKSPACE_ID_1..n: one created workspace per worker, copied from the --key workspace. */
async function workerEnv(sandbox: Sandbox, workers: number, template: string): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (let i = 1; i <= workers; i++) {
    const workspace = await sandbox.createWorkspace({ template, name: `worker ${i}` }).catch(async (err: unknown) => {
      await sandbox.stop();
      return fail(`--workers ${workers}: ${err instanceof Error ? err.message : String(err)}`); // past --max-workspaces: the line says what to do
    });
    env[`SANDBOX_API_KEY_${i}`] = workspace.keys[0]!.key;
    env[`SANDBOX_API_KEY_ID_${i}`] = workspace.keys[0]!.id;
    env[`SANDBOX_WORKSPACE_ID_${i}`] = workspace.id;
  }
  return env;
}
