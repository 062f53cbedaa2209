import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS } from '../helpers/sandbox.ts';
import { runCli, waitForStdout } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';

/**
 * SIGTERM drains: keyed creates in flight when the signal
 * comes all get their answers, what was answered is what was stored, and the
 * exit line counts them. Before, every client got a reset connection while
 * most of the bookings were stored anyway.
 */
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const IN_FLIGHT = 30;
type Created = { id?: string; data?: { id: string }; error?: string };

describe('sandbox start: SIGTERM with requests in flight', () => {
  it('answers every client, stores what it answered, exits 0 and counts them in the --json exit line', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-stop-'));
    const file = join(dir, 'db.json');
    const run = runCli(['start', '--data', file, '--port', '0', '--json', '--stop-timeout', '30s']);
    const { url } = JSON.parse(await run.firstLine) as { url: string };
    const control = (method: string, path: string, body?: unknown) =>
      fetch(`${url}/__sandbox${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    // each create waits 1.5 s before its handler runs: the signal comes while all of them wait
    expect((await control('POST', '/faults', { method: 'POST', path: '/v1/forms', latencyMs: 1500, times: IN_FLIGHT })).status).toBe(201);
    const answers = Array.from({ length: IN_FLIGHT }, (_, i) =>
      fetch(`${url}/v1/forms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json', 'idempotency-key': `stop-${i}` },
        body: JSON.stringify({ name: `in flight #${i}`, fields: [] }),
      }).then(
        async (res) => ({ status: res.status, body: (await res.json()) as Created }),
        (err: Error): { status: number; body: Created } => ({ status: 0, body: { error: String(err.cause ?? err) } }),
      ),
    );
    // the rule is gone once all of them took it: every request is in flight
    for (;;) {
      const { data } = (await (await control('GET', '/faults')).json()) as { data: unknown[] };
      if (data.length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    run.child.kill('SIGTERM');
    const all = await Promise.all(answers);
    expect(all.map((a) => a.status)).toEqual(Array(IN_FLIGHT).fill(201));
    const { code, stdout } = await run.exit;
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toEqual({ stopped: true, drained: IN_FLIGHT, cut: 0, refused: 0 });
    const onDisk = await readFile(file, 'utf8');
    for (const { body } of all) expect(onDisk).toContain((body.data ?? body).id!);
  });

  it('says how many it drained in one line on stderr without --json', async () => {
    const run = runCli(['start', '--in-memory', '--port', '0']);
    await waitForStdout(run, 'Ctrl+C');
    run.child.kill('SIGTERM');
    const { code, stderr } = await run.exit;
    expect(code).toBe(0);
    expect(stderr).toBe('sandbox: stopped; drained 0 requests, cut 0\n');
  });

  it('refuses a --stop-timeout that is not a duration', async () => {
    // refused while commander reads the flags, before any sandbox: the CLI's own entry in this process
    // (test/helpers/cli-in-process.ts) runs the same code without a Node start
    const { code, stderr } = await runCliInProcess(['start', '--in-memory', '--port', '0', '--stop-timeout', 'soon']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('--stop-timeout takes a duration from 0 to 10m, such as 5s or 1500ms, not "soon"');
  });
});
