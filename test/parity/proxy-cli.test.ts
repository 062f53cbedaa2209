import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS } from '../helpers/sandbox.ts';
import { runCli, waitForStdout } from '../helpers/cli.ts';
import { call, fakeTarget, type FakeTarget } from './helpers/fake-target.ts';

/** `sandbox proxy --target`: start's options, and a ready line whose url is the proxy's. */
let target: FakeTarget;
beforeAll(async () => {
  target = await fakeTarget();
});
afterAll(() => target?.stop());

describe('sandbox proxy', () => {
  it('prints a ready line with the proxy url beside sandboxUrl and controlUrl, forwards, and stops on SIGTERM', async () => {
    const run = runCli(['proxy', '--target', target.url, '--port', '0', '--clock', 'manual', '--json']);
    try {
      const ready = JSON.parse(await run.firstLine) as Record<string, string>;
      expect(Object.keys(ready)).toEqual(expect.arrayContaining(['url', 'sandboxUrl', 'controlUrl', 'target', 'workspaceId']));
      expect(ready.url).not.toBe(ready.sandboxUrl);
      expect(ready.controlUrl).toBe(`${ready.sandboxUrl}/__sandbox`);
      expect(ready.target).toBe(target.url);
      const before = target.sent.length;
      const res = await call(ready.url!, 'GET', '/v1/products?limit=1', KEYS.sandboxFull);
      expect(res.status).toBe(200);
      expect(target.sent.length).toBe(before + 1);
      expect(res.bytes.equals(target.sent.at(-1)!.body)).toBe(true);
      // the report is read on the proxy's own URL: what is not /v1 there is the sandbox's
      const parity = await runCli(['parity', '--url', ready.url!, '--json']).exit;
      expect(JSON.parse(parity.stdout)).toMatchObject({ requests: 1, compared: 1 });
    } finally {
      run.child.kill('SIGTERM');
    }
    const exit = await run.exit;
    expect(exit.code).toBe(0);
    // the stop line, as `sandbox start --json` prints it: a second JSON line after the ready line
    expect(JSON.parse(exit.stdout.trim().split('\n').at(-1)!)).toEqual({ stopped: true, drained: 0, cut: 0, refused: 0 });
    // the client's key is never printed
    expect(`${exit.stdout}${exit.stderr}`).not.toContain(KEYS.sandboxFull);
  });

  it('prints the stop line of `sandbox start` on stderr when SIGTERM or Ctrl+C stops it', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const run = runCli(['proxy', '--target', target.url, '--port', '0']);
      try {
        await waitForStdout(run, 'Ctrl+C stops it');
      } finally {
        run.child.kill(signal);
      }
      const exit = await run.exit;
      expect(exit.code, signal).toBe(0);
      expect(exit.stderr, signal).toBe('sandbox: stopped; drained 0 requests, cut 0\n');
    }
  });

  it('refuses a bad --target in one line', async () => {
    const exit = await runCli(['proxy', '--target', 'ftp://example.com', '--port', '0']).exit;
    expect(exit.code).not.toBe(0);
    expect(exit.stderr.trim().split('\n')).toHaveLength(1);
    expect(exit.stderr).toMatch(/--target must be an http:\/\/ or https:\/\/ URL/);
  });

  it('refuses a bad ignore rule or ignore file in one line, before starting', async () => {
    const rule = await runCli(['proxy', '--target', target.url, '--port', '0', '--ignore', 'GET /v1/products*:extra-fields']).exit;
    expect(rule.code).not.toBe(0);
    expect(rule.stderr).toMatch(/unknown kind "extra-fields"/);
    const file = await runCli(['proxy', '--target', target.url, '--port', '0', '--ignore-file', '/nonexistent/rules.json']).exit;
    expect(file.code).toBe(1);
    expect(file.stderr.trim().split('\n')).toEqual(['sandbox: /nonexistent/rules.json: no such ignore file']);
  });
});
