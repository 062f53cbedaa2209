import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root } from './extract.ts';
import { ensureBundle } from '../setup/bundle.ts';

/**
 * How the docs test runs a block's commands: each command line in
 * its own `bash -c` from the block's directory, as a reader types it, with
 * `NO_COLOR=1`. Substitutions, the only changes made to what the docs say:
 * - `npx sandbox start` gets `--port <free port>` unless it names a port, and
 *   `--in-memory` unless it names `--data`: parallel runs never share a port
 *   or the repository's `.sandbox/db.json` (and its lock);
 * - with a running sandbox, `localhost:4010` and `127.0.0.1:4010` become its
 *   address, and `SANDBOX_URL` names it (what the CLI reads before 4010) to
 *   the lines that run the CLI (`npx sandbox`): the recipes' test runners read
 *   SANDBOX_URL too, and without it, as in a reader's shell, start their own;
 * - `localhost:3000` (the reader's app receiving webhooks) becomes the test's receiver;
 * - `npx vitest run` under `sandbox exec` reads and fills a module cache kept between runs (NPX_SHIM below);
 * - each `npx sandbox start --detach` of a block (several may be, one-shell
 *   too) gets a free port in place of the one it names (4010 when none), its
 *   URLs in every line of the block follow it, `SANDBOX_URL` names the one on
 *   4010 (where the reader's commands without `--url` go), and each is stopped
 *   when the block ends.
 * Commands that keep running (`sandbox start`, `sandbox listen`) are started,
 * awaited until they print, and stopped with SIGINT when the doc (start) or
 * the block (the others) is done.
 */
export { freePort } from '../helpers/free-port.ts';

export const LONG_RUNNING = /^npx sandbox (?:start|listen)\b/;

/** Whether something still accepts connections on the port (a detached sandbox the block did not stop). */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * The docs' `npx <name>`, resolved as npm resolves an installed bin, without npm's start (about
 * 1 s of the 1.3 s an `npx sandbox --version` took, 52 times per run): the first
 * node_modules/.bin/<name> from the working directory up, else this repository's own bin for
 * its names (what `npx sandbox` runs in the clone), else npm's npx itself. That npx finds the
 * repository's bin is checked once, with the real npx (docs.test.ts). The docs test only: the
 * package's journeys run npm's npx, as an integrator's CI does.
 * `npx vitest run` also gets vitest's cache of transformed modules on disk, in the run's scratch
 * folder: the docs run the examples' vitest config three times (README), and in the clone each
 * run transformed the package's dist/ (74 modules, self-referenced, so not external as in an
 * installed node_modules) anew: 7.3 s of CPU a run, 3.4 s with the cache warm. The
 * cache is keyed by each module's content and the config: the same tests run, with the same result.
 * It lives beside vitest's own cache of the suite (node_modules/.experimental-vitest-cache, in a
 * folder of its own: a nested run checks its own lockfile stamp), not in the run's scratch folder,
 * so that a run after the first finds it warm too: the first nested run of each docs test paid
 * about 3 s of CPU transforming dist/ again. vitest clears the folder with its own
 * when the lockfile changes, and a fresh install has neither.
 * Only under a sandbox of the test's (`sandbox exec`: SANDBOX_URL is set): with the cache, vitest
 * 4.1 hands a global setup the modules it read back as bytes, not text (ServerModuleRunner reads
 * the cached file without an encoding), and the first error stack that passes through one of them
 * throws `code.charCodeAt is not a function` and kills vitest. The recipes' global setup starts a
 * sandbox when SANDBOX_URL is unset, and its stop makes such a stack (a destroyed socket): the
 * README's `cd examples/parallel-workers && npx vitest run` failed that way with it, and passes without.
 */
const NPX_SHIM = `#!/usr/bin/env bash
name="$1"
dir="$PWD"
while :; do
  if [ -x "$dir/node_modules/.bin/$name" ]; then
    shift
    if [ "$name" = vitest ] && [ "$1" = run ] && [ -n "$DOCS_TEST_VITEST_CACHE" ] && [ -n "$SANDBOX_URL" ]; then
      set -- "$@" --experimental.fsModuleCache --experimental.fsModuleCachePath "$DOCS_TEST_VITEST_CACHE"
    fi
    exec "$dir/node_modules/.bin/$name" "$@"
  fi
  [ "$dir" = / ] && break
  dir="\${dir%/*}"; dir="\${dir:-/}"   # the parent, without a dirname process per level
done
case "$name" in
  sandbox|travel-commerce-sandbox|tcs-sandbox) shift; exec "$DOCS_TEST_NODE" "$DOCS_TEST_BIN" "$@" ;;
esac
exec "$DOCS_TEST_NPX" "$@"
`;

/** The docs' nested vitest runs' module cache: kept between runs (NPX_SHIM above). */
export const DOCS_VITEST_CACHE = join(root, 'node_modules', '.experimental-vitest-cache', 'docs-examples');

let shim: Record<string, string> | undefined;
export function npxShim(): Record<string, string> {
  if (!shim) {
    const dir = mkdtempSync(join(tmpdir(), 'docs-test-npx-'));
    writeFileSync(join(dir, 'npx'), NPX_SHIM);
    chmodSync(join(dir, 'npx'), 0o755);
    const npx = execFileSync('bash', ['-c', 'command -v npx'], { encoding: 'utf8' }).trim();
    shim = {
      PATH: `${dir}:${process.env.PATH}`,
      DOCS_TEST_NODE: process.execPath,
      DOCS_TEST_BIN: join(root, 'bin', 'sandbox.js'),
      DOCS_TEST_NPX: npx,
      DOCS_TEST_VITEST_CACHE: DOCS_VITEST_CACHE,
    };
  }
  return shim;
}

export const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...extra });

export function sh(command: string, cwd: string, extra: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    // one stream, as a terminal shows them: on two pipes, a line on stderr (a `fault add` note) could
    // arrive after the stdout of the lines that followed it, and a block's expected output then differed
    const child = spawn('bash', ['-o', 'pipefail', '-c', `exec 2>&1\n${command}`], { cwd, env: env(extra) });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Polls until `done()` (a generous deadline: the machine is shared). */
export async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const deadline = Date.now() + ms; !done(); ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export class Background {
  output = '';
  exited: number | null | undefined;
  private readonly child: ChildProcess;

  constructor(
    readonly command: string,
    cwd: string,
    extra: Record<string, string>,
  ) {
    // its own process group: npx does not pass a signal on to the sandbox it runs
    this.child = spawn('bash', ['-c', command], { cwd, env: env(extra), detached: true });
    this.child.stdout!.on('data', (chunk: Buffer) => (this.output += chunk));
    this.child.stderr!.on('data', (chunk: Buffer) => (this.output += chunk));
    this.child.on('exit', (code) => (this.exited = code));
  }

  /** Until it printed `text` (or anything); fails at once if it exits first. */
  async printed(text?: string): Promise<void> {
    await until(
      () => this.exited !== undefined || (text ? this.output.includes(text) : /\n/.test(this.output)),
      `"${this.command}" to print ${text ?? 'a line'}`,
    );
    if (this.exited !== undefined) throw new Error(`"${this.command}" exited with ${this.exited}:\n${this.output}`);
  }

  /** Ctrl+C, as the docs say to stop it; its exit code. */
  async stop(): Promise<number | null> {
    if (this.exited === undefined) {
      try {
        process.kill(-this.child.pid!, 'SIGINT');
      } catch {
        /* already gone */
      }
      await until(() => this.exited !== undefined, `"${this.command}" to stop`);
    }
    return this.exited ?? null;
  }
}

/** `npx sandbox start ...` as the docs write it, with a free port and in memory unless it says otherwise. */
export function startCommand(command: string, port: number): string {
  const [cmd, comment] = command.split(/\s+(?=#)/);
  let out = cmd!.trim();
  if (!/--port\b/.test(out)) out += ` --port ${port}`;
  if (!/--data\b|--in-memory\b/.test(out)) out += ' --in-memory';
  return comment ? `${out} ${comment}` : out;
}

/** The reader's app at localhost:3000: answers 200 and keeps what it received. */
export async function receiver(): Promise<{
  port: number;
  received: { path: string; headers: Record<string, unknown>; body: string }[];
  close: () => Promise<void>;
}> {
  const received: { path: string; headers: Record<string, unknown>; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** dist/ as `npm install` leaves it (the `dependencies` script): the examples import the package. Shared with the CLI's spawns (test/setup/bundle.ts). */
export async function ensureBuilt(): Promise<void> {
  ensureBundle();
}
