import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PACKAGE_ROOT } from '../config.ts';
import { sendText } from '../control/http-send.ts';
import { bold, cyan, dim, fail, printJson } from './output.ts';
import type { StartFlags } from './start.ts';
import { DETACHED_RECORD, recordDetached } from './detached-record.ts';

export interface DetachFlags extends StartFlags {
  detach: true;
  log?: string;
}

/** the parent gives up on a start that neither answers nor exits in this long (a huge data file still loading) */
const READY_DEADLINE_MS = 120_000;
const POLL_MS = 50;
/** options of the parent alone: the child is told --json, and must not detach again */
const PARENT_ONLY = new Set(['--detach', '--json']);
const PARENT_ONLY_WITH_VALUE = new Set(['--log']);

/**
 * `sandbox start --detach` (docs/cli.md, "In the background"): the same `sandbox start`, run as a
 * process of its own with --json and its output in a log file; this one
 * returns once that sandbox answers, with its ready line, and exits 0. The
 * sandbox then runs until `sandbox stop` (POST /__sandbox/stop, the SIGTERM
 * path) or a signal. The log is <data>.log beside the data file, or a file in
 * the temporary directory for an in-memory sandbox, unless --log says.
 */
export async function runDetached(flags: DetachFlags): Promise<void> {
  if (flags.dashboard) fail('--detach and --dashboard do not go together (the dashboard needs this terminal); start detached, then run `sandbox dashboard`');
  const log = resolve(flags.log ?? defaultLog(flags));
  mkdirSync(dirname(log), { recursive: true });
  const fd = openSync(log, 'a');
  const from = statSync(log).size; // the log is appended to: this start's lines begin here
  const env = { ...process.env };
  for (const name of ['SANDBOX_DETACH', 'SANDBOX_JSON', 'SANDBOX_LOG']) delete env[name];
  const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'sandbox.js'), 'start', ...childArgs(process.argv), '--json'], {
    detached: true, // its own process group: the shell's Ctrl+C and the CI step's end do not reach it
    stdio: ['ignore', fd, fd],
    env,
  });
  closeSync(fd);
  let exited: string | null = null;
  child.on('exit', (code, signal) => (exited = signal ?? `code ${code}`));
  child.on('error', (err) => (exited = err.message));
  child.unref();

  const deadline = Date.now() + READY_DEADLINE_MS;
  for (;;) {
    const lines = readFileSync(log, 'utf8').slice(from).split('\n');
    const ready = lines.map(readyLine).find((line) => line !== null);
    if (ready) return announce(ready, child.pid!, log, flags);
    if (exited !== null) {
      const last = lines
        .map((l) => l.trim())
        .filter(Boolean)
        .at(-1)
        ?.replace(/^sandbox: /, '');
      fail(`${last ?? `the sandbox exited (${exited}) before it was ready`} (log: ${log})`);
    }
    if (Date.now() >= deadline)
      fail(
        `the sandbox (process ${child.pid}) is not ready after ${READY_DEADLINE_MS / 1000} s; it may still be loading: \`sandbox wait\` waits on, its log is ${log}`,
      );
    await sleep(POLL_MS);
  }
}

interface Ready {
  url: string;
  controlUrl: string;
  controlToken?: string;
  inspectorUrl: string;
  workspaces: { name: string; id: string; mode: string; keys: { key: string; scopes: string[] | null }[] }[];
}

function readyLine(line: string): Ready | null {
  if (!line.startsWith('{')) return null;
  try {
    const value = JSON.parse(line) as Partial<Ready>;
    return typeof value.url === 'string' && Array.isArray(value.workspaces) ? (value as Ready) : null;
  } catch {
    return null; // the line is still being written
  }
}

async function announce(ready: Ready, pid: number, log: string, flags: DetachFlags): Promise<void> {
  // printed after the sandbox listens; one health check makes "answers" true and not assumed
  // node:http, as the control client: fetch would load undici for this one request, most of the parent's CPU
  const headers: Record<string, string> = ready.controlToken ? { 'x-sandbox-token': ready.controlToken } : {};
  const health = await sendText(new URL(`${ready.controlUrl}/health`), { method: 'GET', headers }).catch(() => null);
  await health?.text().catch(() => '');
  if (!health || health.status < 200 || health.status > 299)
    fail(`the sandbox (process ${pid}) printed its ready line but ${ready.url} does not answer; see ${log}`);
  // for a bare `sandbox stop` from this folder (./detached-record.ts): a start that failed records nothing
  try {
    recordDetached({ url: ready.url, pid, log, data: flags.inMemory || !flags.data ? null : resolve(flags.data) });
  } catch (err) {
    // the sandbox serves all the same: only a bare `stop` will not find it
    process.stderr.write(`sandbox: cannot record the sandbox in ${DETACHED_RECORD} (${(err as Error).message}); stop it with --url ${ready.url}\n`);
  }
  if (flags.json) {
    printJson({ ...ready, pid, log });
  } else {
    const lines = [`${bold('travel-commerce-sandbox')} is serving ${cyan(ready.url)} in the background (process ${pid}; log ${log})`];
    for (const w of ready.workspaces) {
      lines.push(`  ${bold(w.name)}  ${w.mode}`);
      for (const k of w.keys) lines.push(`    ${(k.scopes === null ? 'full access' : k.scopes.join(' ')).padEnd(16)} ${k.key}`);
    }
    if (ready.controlToken) lines.push(`  control token  ${ready.controlToken}  (send it as X-Sandbox-Token)`);
    lines.push(dim(`  stop it with: npx sandbox stop --url ${ready.url}`));
    process.stdout.write(`${lines.join('\n')}\n`);
  }
  process.exit(0);
}

function defaultLog(flags: DetachFlags): string {
  if (!flags.inMemory && flags.data) return `${flags.data}.log`;
  return join(tmpdir(), `travel-commerce-sandbox-${process.pid}-${Date.now()}.log`);
}

/** This command line's `start` options, less the parent's own. */
export function childArgs(argv: readonly string[]): string[] {
  const rest = argv.slice(argv.indexOf('start', 2) + 1);
  const out: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const name = arg.split('=')[0]!;
    if (PARENT_ONLY.has(arg)) continue;
    if (PARENT_ONLY_WITH_VALUE.has(name)) {
      if (!arg.includes('=')) i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}
