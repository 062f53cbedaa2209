import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/sandbox.ts';
import { isRunning } from '../../src/cli/lifecycle.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { runCli } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';
import { freePort } from '../helpers/free-port.ts';

/**
 * A shell CI starts the sandbox in the background
 * (`start --detach`), waits for it (`sandbox wait`), and stops it
 * (`sandbox stop`, POST /__sandbox/stop: the SIGTERM path), losing no
 * acknowledged write. Before, there was `sandbox start &` and hand-written waiting.
 */
let dir: string;
const started: number[] = [];
const onTheWayOut: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const clean of onTheWayOut.splice(0)) await clean();
  for (const pid of started.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  if (dir) await rm(dir, { recursive: true, force: true });
});

const cli = async (args: string[], env: Record<string, string> = {}) => runCli(args, { SANDBOX_URL: '', ...env }, dir).exit;

type Ready = { url: string; pid: number; log: string; workspaces: unknown[] };

async function detach(args: string[]): Promise<Ready> {
  const r = await cli(['start', '--detach', '--json', '--port', '0', ...args]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const ready = JSON.parse(r.stdout.trim()) as Ready;
  started.push(ready.pid);
  return ready;
}

describe('sandbox start --detach, then sandbox stop', () => {
  it('returns with the JSON ready line while the sandbox serves on; stop returns once its process has exited, with every acknowledged write in the file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-detach-'));
    const ready = await detach(['--data', 'db.json']);
    expect(ready.log).toBe(join(dir, 'db.json.log'));
    expect(ready.workspaces.length).toBeGreaterThan(0);
    expect(isRunning(ready.pid)).toBe(true);
    expect((await fetch(`${ready.url}/__sandbox/health`)).status).toBe(200);
    expect(await Promise.all(Array.from({ length: 5 }, (_, i) => createForm(ready.url, `kept #${i}`)))).toEqual([201, 201, 201, 201, 201]);

    const stop = await cli(['stop', '--url', ready.url]);
    expect(stop.stderr).toBe('');
    expect(stop.code).toBe(0);
    expect(stop.stdout).toBe(`stopped the sandbox at ${ready.url} (process ${ready.pid} has exited; its data is flushed)\n`);
    expect(isRunning(ready.pid)).toBe(false);
    expect(existsSync(join(dir, 'db.json.lock'))).toBe(false);
    const db = await readFile(join(dir, 'db.json'), 'utf8');
    for (let i = 0; i < 5; i++) expect(db).toContain(`kept #${i}`);
  });

  it('POST /__sandbox/stop takes the SIGTERM path: the requests in flight answer, their writes are kept, the exit line counts them', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-detach-'));
    const ready = await detach(['--data', 'db.json', '--stop-timeout', '30s']);
    // each create waits 1.5 s: the stop comes while all of them are in flight
    await fetch(`${ready.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'POST', path: '/v1/forms', latencyMs: 1500, times: 5 }),
    });
    const creates = Array.from({ length: 5 }, (_, i) => createForm(ready.url, `in flight #${i}`));
    // the rule is gone once all of them took it: every create is in flight
    for (;;) {
      const { data } = (await (await fetch(`${ready.url}/__sandbox/faults`)).json()) as { data: unknown[] };
      if (data.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const asked = await fetch(`${ready.url}/__sandbox/stop`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(asked.status).toBe(200);
    expect(await asked.json()).toEqual({ data: { stopping: true, pid: ready.pid, hostname: hostname(), stopTimeoutMs: 30_000 } });
    expect(await Promise.all(creates)).toEqual([201, 201, 201, 201, 201]);
    while (isRunning(ready.pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    const db = await readFile(join(dir, 'db.json'), 'utf8');
    for (let i = 0; i < 5; i++) expect(db).toContain(`in flight #${i}`);
    expect(await readFile(ready.log, 'utf8')).toContain('{"stopped":true,"drained":5,"cut":0,"refused":0}');
  });

  it('prints the short ready line without --json; stop finds the sandbox by --port and writes its run report first', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-detach-'));
    const port = await freePort();
    const r = await cli(['start', '--detach', '--in-memory', '--port', String(port)]);
    expect(r.code).toBe(0);
    const [, pidText, log] = /process (\d+); log (\S+)\)/.exec(r.stdout) ?? [];
    const pid = Number(pidText);
    started.push(pid);
    onTheWayOut.push(() => rm(log!, { force: true }));
    expect(r.stdout).toContain(`is serving http://127.0.0.1:${port} in the background`);
    expect(r.stdout).toContain(`npx sandbox stop --url http://127.0.0.1:${port}`);
    expect(r.stdout).toMatch(new RegExp(`log ${tmpdir()}/travel-commerce-sandbox-\\d+-\\d+\\.log`));
    for (let i = 0; i < 2; i++)
      expect((await fetch(`http://127.0.0.1:${port}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } })).status).toBe(200);
    // the run report of a sandbox that ran in the background, written by the stop, as exec --report writes it
    const stop = await cli(['stop', '--port', String(port), '--json', '--report', 'report.xml', '--report-format', 'junit']);
    expect(JSON.parse(stop.stdout)).toEqual({ stopped: true, url: `http://127.0.0.1:${port}`, pid, exited: true });
    expect(stop.stderr).toMatch(/^sandbox: 2 requests to \/v1 \(200 x2\); 1 of \d+ operations called\n/);
    expect(stop.stderr).toContain('report: report.xml (junit)\n');
    const junit = await readFile(join(dir, 'report.xml'), 'utf8');
    expect(junit).toMatch(/<testcase classname="sandbox\.v1" name="\w+ \(GET \/v1\/products\)"><system-out>2 requests: 200 x2<\/system-out><\/testcase>/);
  });

  it('stop --report appends the run report to $GITHUB_STEP_SUMMARY as Markdown, as `sandbox exec` does', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-detach-'));
    const ready = await detach(['--data', 'db.json']);
    for (let i = 0; i < 2; i++)
      expect((await fetch(`${ready.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } })).status).toBe(200);
    const summary = join(dir, 'step-summary.md');
    await writeFile(summary, '## an earlier step\n');

    const stop = await cli(['stop', '--url', ready.url, '--report', 'report.xml', '--report-format', 'junit'], { GITHUB_STEP_SUMMARY: summary });
    expect(stop.code, stop.stderr).toBe(0);
    expect(stop.stderr).toContain('report: report.xml (junit)\n');
    const md = await readFile(summary, 'utf8');
    expect(md.startsWith('## an earlier step\n### Sandbox run report: sandbox stop\n')).toBe(true);
    expect(md).toContain('**2 requests** to /v1 (200 ×2)');
    expect(md).toMatch(/\| `\w+` GET \/v1\/products \| 2 \| 200 ×2 \| {2}\|/);
    expect(md).toMatch(/<details><summary>Never called \(\d+\)<\/summary>/);
  });

  it("fails with the sandbox's own line when it cannot start (a port in use), naming the log", async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-detach-'));
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await cli(['start', '--detach', '--in-memory', '--port', String(port), '--log', 'start.log']);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        `sandbox: Port ${port} on 127.0.0.1 is already in use; stop the other process or pass --port <n> (0 picks a free port) (log: ${join(dir, 'start.log')})\n`,
      );
    } finally {
      server.close();
    }
  });
});

/**
 * What stop and wait say on their own, with no daemon to drive: the CLI's own entry in this process
 * (test/helpers/cli-in-process.ts), the same program, lines and exit codes as the bin, without a
 * Node start per command.
 */
describe('sandbox stop and sandbox wait, when nothing runs there', () => {
  const inProcess = (args: string[]) => runCliInProcess(args, { SANDBOX_URL: '' });

  it('stop: one line and exit 1', async () => {
    const port = await freePort();
    const r = await inProcess(['stop', '--port', String(port)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`sandbox: no sandbox is running at http://127.0.0.1:${port} (connection refused); nothing to stop\n`);
  });

  it('wait: gives up after --timeout with one line; answers at once when the sandbox is ready', async () => {
    const port = await freePort();
    const r = await inProcess(['wait', '--port', String(port), '--timeout', '300ms']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^sandbox: no sandbox was ready at http:\/\/127\.0\.0\.1:\d+ within 0\.3 s \(last: no sandbox is running at .* \(connection refused\)\); is it starting\? its log says why not\n$/,
    );

    const sandbox = await createSandbox({ port: 0 });
    try {
      const ok = await inProcess(['wait', '--url', sandbox.url]);
      expect(ok).toMatchObject({ code: 0, stdout: `the sandbox at ${sandbox.url} is ready\n` });
      // a sandbox another program started with createSandbox() is that program's to stop
      const refused = await fetch(`${sandbox.url}/__sandbox/stop`, { method: 'POST', headers: { 'content-type': 'application/json' } });
      expect(refused.status).toBe(409);
      expect(refused.headers.get('x-sandbox-reason')).toMatch(/^CONTROL_CONFLICT .*sandbox\.stop\(\)/);
    } finally {
      await sandbox.stop();
    }
  });
});

const createForm = (url: string, name: string): Promise<number> =>
  fetch(`${url}/v1/forms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, fields: [] }),
  }).then((res) => res.status);
