import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { runCli, waitForStderr, waitForStdout } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';

/**
 * The CLI's ways to the inspector: its URL in the banner and in the
 * --json ready line (inspectorUrl), `sandbox start --open`, and `sandbox
 * inspect [--open] [--json]` for a running sandbox. A browser that cannot
 * open (no display, as in CI) is one line with the URL, never a stack trace.
 * $SANDBOX_BROWSER names the opener (a command given the URL).
 */
async function stop(run: ReturnType<typeof runCli>): Promise<void> {
  run.child.kill('SIGTERM');
  await run.exit;
}

describe('sandbox start shows the inspector', () => {
  it('--json: the ready line has inspectorUrl, and it serves the page', async () => {
    const run = runCli(['start', '--in-memory', '--port', '0', '--json']);
    try {
      const ready = JSON.parse(await run.firstLine) as { url: string; inspectorUrl: string };
      expect(ready.inspectorUrl).toBe(`${ready.url}/__sandbox/ui/`);
      const page = await fetch(ready.inspectorUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<div id="root">');
    } finally {
      await stop(run);
    }
  }, 60_000);

  it('on a non-loopback host the banner and the ready line carry the token in the #fragment, never in a query string', async () => {
    const json = runCli(['start', '--in-memory', '--port', '0', '--host', '0.0.0.0', '--json']);
    try {
      const ready = JSON.parse(await json.firstLine) as { url: string; controlToken: string; inspectorUrl: string };
      expect(ready.inspectorUrl).toBe(`${ready.url}/__sandbox/ui/#token=${encodeURIComponent(ready.controlToken)}`);
      expect(ready.inspectorUrl).not.toContain('?');
    } finally {
      await stop(json);
    }
    const banner = runCli(['start', '--in-memory', '--port', '0', '--host', '0.0.0.0', '--control-token', 'banner-token-123']);
    try {
      await waitForStdout(banner, 'Ctrl+C');
      expect(banner.output().stdout).toMatch(/inspector {6}http:\/\/0\.0\.0\.0:\d+\/__sandbox\/ui\/#token=banner-token-123\n/);
    } finally {
      await stop(banner);
    }
    const loopback = runCli(['start', '--in-memory', '--port', '0']);
    try {
      await waitForStdout(loopback, 'Ctrl+C');
      expect(loopback.output().stdout).toMatch(/inspector {6}http:\/\/127\.0\.0\.1:\d+\/__sandbox\/ui\/\n/);
    } finally {
      await stop(loopback);
    }
  }, 60_000);

  it('--open with an opener that fails prints one line with the URL, and the sandbox keeps serving', async () => {
    const run = runCli(['start', '--in-memory', '--port', '0', '--open'], { SANDBOX_BROWSER: 'false' });
    try {
      await waitForStderr(run, 'could not open a browser');
      const { stdout, stderr } = run.output();
      const url = /serving (http:\/\/\S+)/.exec(stdout)![1]!;
      expect(stderr).toBe(`sandbox: could not open a browser (false exited with code 1); open ${url}/__sandbox/ui/\n`);
      expect((await fetch(`${url}/__sandbox/health`)).status).toBe(200);
    } finally {
      await stop(run);
    }
  }, 60_000);
});

describe('sandbox inspect', () => {
  let sandbox: Sandbox;
  let dir = '';
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
    dir = await mkdtemp(join(tmpdir(), 'inspect-'));
  });
  afterAll(() => sandbox?.stop());

  it('prints the URL of a running sandbox, or {inspectorUrl} with --json; with --token, in the #fragment', async () => {
    const plain = await runCliInProcess(['inspect', '--url', sandbox.url]);
    expect(plain).toEqual({ code: 0, stdout: `${sandbox.url}/__sandbox/ui/\n`, stderr: '' });
    const json = await runCliInProcess(['inspect', '--url', sandbox.url, '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ inspectorUrl: `${sandbox.url}/__sandbox/ui/` });
    const viaEnv = await runCliInProcess(['inspect', '--json'], { SANDBOX_URL: sandbox.url });
    expect(JSON.parse(viaEnv.stdout)).toEqual({ inspectorUrl: `${sandbox.url}/__sandbox/ui/` });
  });

  it('with a token (a non-loopback sandbox): the URL carries it in its #fragment; without the sandbox running: one line', async () => {
    const guarded = await createSandbox({ port: 0, host: '0.0.0.0', controlToken: 'inspect-token-123', storage: 'memory', clock: 'manual' });
    try {
      const url = `http://127.0.0.1:${guarded.port}`;
      const r = await runCliInProcess(['inspect', '--url', url, '--json'], { SANDBOX_CONTROL_TOKEN: 'inspect-token-123' });
      expect(JSON.parse(r.stdout)).toEqual({ inspectorUrl: `${url}/__sandbox/ui/#token=inspect-token-123` });
      const flag = await runCliInProcess(['inspect', '--url', url, '--token', 'inspect-token-123']);
      expect(flag.stdout).toBe(`${url}/__sandbox/ui/#token=inspect-token-123\n`);
    } finally {
      await guarded.stop();
    }
    const down = await runCliInProcess(['inspect', '--url', 'http://127.0.0.1:9']);
    expect(down.code).toBe(1);
    expect(down.stdout).toBe('');
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    expect(down.stderr).toMatch(/^sandbox: .*start one with `sandbox start`/);
  });

  it('--open runs $SANDBOX_BROWSER with the URL; a failing or missing opener is one line with the URL, exit 0', async () => {
    const log = join(dir, 'opened.txt');
    const opener = join(dir, 'opener.sh');
    await writeFile(opener, `#!/bin/sh\nprintf '%s' "$1" > '${log}'\n`);
    await chmod(opener, 0o755);
    const opened = await runCliInProcess(['inspect', '--url', sandbox.url, '--open'], { SANDBOX_BROWSER: opener });
    expect(opened).toEqual({ code: 0, stdout: `${sandbox.url}/__sandbox/ui/\n`, stderr: '' });
    expect(await readFile(log, 'utf8')).toBe(`${sandbox.url}/__sandbox/ui/`);

    const failing = await runCliInProcess(['inspect', '--url', sandbox.url, '--open'], { SANDBOX_BROWSER: 'false' });
    expect(failing.code).toBe(0);
    expect(failing.stderr).toBe(`sandbox: could not open a browser (false exited with code 1); open ${sandbox.url}/__sandbox/ui/\n`);

    // no opener at all (xdg-open missing from PATH, as on a bare CI image)
    const missing = await runCliInProcess(['inspect', '--url', sandbox.url, '--open'], { SANDBOX_BROWSER: '', PATH: dir });
    expect(missing.code).toBe(0);
    expect(missing.stderr).toMatch(/^sandbox: could not open a browser \((xdg-open|open|cmd) was not found\); open http:\/\/\S+\/__sandbox\/ui\/\n$/);
  });
});
