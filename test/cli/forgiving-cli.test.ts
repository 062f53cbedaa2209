import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { BIN, runCli, waitForStderr } from '../helpers/cli.ts';

/**
 * A CLI that forgives, in one style, and the journeys through it. Each journey is
 * driven as a user drives it: the bin in its own process, against a real sandbox on a real socket
 * (started here, in memory, on a manual clock so the clock and rate-limit lines are exact).
 */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
});
afterAll(() => sandbox?.stop());

/** `sandbox <args> --url <the sandbox>`, to its exit. */
const cli = (args: string[]) => runCli([...args, '--url', sandbox.url]).exit;
/** The bin with no sandbox named, for what fails before any request. */
const bare = (args: string[]) => runCli(args, { SANDBOX_URL: '' }).exit;
const lines = (text: string) => text.trimEnd().split('\n');
const api = (path: string, key: string) => fetch(`${sandbox.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
const reasonOf = (res: Response) => res.headers.get('x-sandbox-reason') ?? '';

describe('keys by what a listing shows', () => {
  it('keys revoke takes the prefix every listing shows (with or without its "…"), and the key then gets 401 KEY_REVOKED', async () => {
    const listed = await cli(['keys', 'list', '--workspace', 'Borealis Adventures (sandbox)']);
    expect(listed.code).toBe(0);
    const row = lines(listed.stdout).find((line) => line.includes('Borealis catalog read-only'))!;
    const prefix = row.split(/\s{2,}/).find((cell) => KEYS.sandboxRead.startsWith(cell) && cell.length < KEYS.sandboxRead.length)!;
    expect(prefix).toMatch(/^tcs_test_borealis_p/);
    expect((await api('/v1/products?limit=1', KEYS.sandboxRead)).status).toBe(200);

    const revoked = await cli(['keys', 'revoke', `${prefix}…`]);
    expect(revoked.stderr).toBe('');
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toMatch(/^Revoked wkey_\S+ at \S+; the next request with it gets 401/);
    const refused = await api('/v1/products?limit=1', KEYS.sandboxRead);
    expect(refused.status).toBe(401);
    expect(reasonOf(refused)).toMatch(/^KEY_REVOKED key tcs_test_borealis_p/);
  });

  it('a key nobody has is one line that says how to find them', async () => {
    const r = await cli(['keys', 'revoke', 'tcs_test_nobody']);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      'sandbox: no workspace key "tcs_test_nobody": give its id, its prefix or the key itself (`sandbox keys list` lists them)',
    ]);
  });
});

describe('--workspace by a part of its name', () => {
  it('an unambiguous part, in any case, names the workspace; an ambiguous one lists the candidates on one line', async () => {
    const one = await cli(['keys', 'list', '--workspace', 'borealis']);
    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(/^Borealis Adventures \(sandbox\) {2}wksp_/);
    expect(one.stdout).not.toContain('Aurora');
    expect((await cli(['keys', 'list', '--workspace', 'AURORA'])).stdout).toMatch(/^Aurora Tours {2}wksp_/);

    const copy = await cli(['workspace', 'create', '--template', 'borealis', '--name', 'Borealis copy', '--json']);
    expect(copy.code).toBe(0);
    const both = await cli(['keys', 'list', '--workspace', 'borealis']);
    expect(both.code).toBe(1);
    expect(lines(both.stderr)).toHaveLength(1);
    expect(both.stderr).toMatch(
      /^sandbox: --workspace "borealis" matches 2 workspaces: Borealis Adventures \(sandbox\) \(wksp_\S+\), Borealis copy \(wksp_\S+\); give more of the name, or the id\n$/,
    );
    expect((await cli(['keys', 'list', '--workspace', 'borealis copy'])).stdout).toMatch(/^Borealis copy {2}wksp_/);
  });
});

describe('usage errors: one line, in our style', () => {
  it.each([
    [['strat'], 2, 'sandbox: unknown command "strat"; did you mean "start"? (sandbox --help)'],
    [['start', '--port', 'abc'], 1, 'sandbox: --port must be a whole number from 0 to 65535, not "abc" (sandbox start --help)'],
    [['start', '--prot', '4010'], 2, 'sandbox: unknown option "--prot" for "sandbox start"; did you mean "--port"? (sandbox start --help)'],
    [['keys', 'revoke'], 2, 'sandbox: keys revoke needs <key> (sandbox keys revoke --help)'],
    [['keys', 'lst'], 2, 'sandbox: unknown command "keys lst"; did you mean "keys list"? keys has: list, create, revoke (sandbox keys --help)'],
  ])('sandbox %j', async (args, code, line) => {
    const r = await bare(args);
    expect(r.stderr).toBe(`${line}\n`);
    expect(r.code).toBe(code);
  });
});

describe('the clock and the rate limits say what they did', () => {
  it('sandbox clock shows the offset after clock advance 2h', async () => {
    expect((await cli(['clock', 'advance', '2h'])).code).toBe(0);
    const shown = await cli(['clock']);
    expect(shown.stdout).toMatch(/^2026-01-15T11:00:00.000Z {2}\(manual clock; offset \+2h from its start; \d+ timers? pending\)\n$/);
  });

  it('ratelimit exhaust names the window it emptied and when it refills, and the next request gets 429', async () => {
    const r = await cli(['ratelimit', 'exhaust', '--workspace', 'aurora']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Emptied Aurora Tours's minute window \(3000 requests\) and its burst \(30\): requests get 429 until the window refills at 2026-01-15T11:01:00.000Z, in 60 s of sandbox time\n$/,
    );
    expect((await api('/v1/products?limit=1', KEYS.liveFull)).status).toBe(429);
  });
});

describe('Ctrl-C during a seed', () => {
  it('stops between chunks, says what was made and kept and how to undo it, and sends no chunk after', async () => {
    const workspace = sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
    const bookings = async () => {
      const res = await fetch(`${sandbox.controlUrl}/workspaces/${workspace.id}/collections`);
      const { data } = (await res.json()) as { data: { name: string; count: number }[] };
      return data.find((c) => c.name === 'bookings')!.count;
    };
    const before = await bookings();
    // 20 requests of 500 bookings: after the first, 18 are left to stop (50,000 made 5,000 before it stopped)
    const run = runCli(['seed', '--bookings', '10000', '--workspace', 'borealis adv', '--url', sandbox.url]);
    await waitForStderr(run, 'seeding: 5%');
    run.child.kill('SIGINT');
    const { code, stderr } = await run.exit;
    expect(code).toBe(130);
    const said = /keeps what was made: .*?\b(\d[\d,]*) bookings\b/.exec(stderr);
    expect(said, stderr).not.toBeNull();
    const made = Number(said![1]!.replace(/,/g, ''));
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(10_000);
    expect(stderr).toContain('sandbox: seed stopped by Ctrl-C between chunks; Borealis Adventures (sandbox) keeps what was made');
    expect(stderr).toContain(
      'to undo it: `sandbox reset` (every workspace back to its fixtures), `sandbox workspace reset "Borealis Adventures (sandbox)"` (this one alone), or `sandbox snapshot restore <name>` for a snapshot saved before',
    );
    // what it said is what the sandbox holds: no chunk was sent after the one in flight
    expect(await bookings()).toBe(before + made);
  });
});

describe('a start that may not write', () => {
  it('suggests --in-memory or another --data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbox-readonly-'));
    await chmod(dir, 0o555);
    try {
      // root may write anywhere: the start runs as nobody, as a user without the right would
      const asRoot = process.getuid?.() === 0;
      const child = spawn(process.execPath, [BIN, 'start', '--port', '0'], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1' },
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(lines(stderr)).toHaveLength(1);
      expect(stderr).toMatch(
        /^sandbox: Cannot (open|lock) database .*EACCES.*; the sandbox may not write there: start with --in-memory, or --data <a file in a folder you can write>\n$/,
      );
    } finally {
      await chmod(dir, 0o755);
      await rm(dir, { recursive: true, force: true });
    }
  });
});
