import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEYS } from '../helpers/sandbox.ts';
import { runCli, waitForStdout } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';

describe('sandbox start (real sockets)', () => {
  it('--json prints exactly one JSON ready line, serves the API, and exits 0 on SIGTERM with one JSON exit line', async () => {
    const run = runCli(['start', '--in-memory', '--port', '0', '--json']);
    const summary = JSON.parse(await run.firstLine);
    expect(Object.keys(summary)).toEqual(['url', 'controlUrl', 'inspectorUrl', 'clock', 'workspaces']);
    expect(summary.clock).toMatchObject({ source: 'fresh', mode: 'real', offsetMs: 0, savedMode: null }); // in memory: nothing saved
    expect(summary.inspectorUrl).toBe(`${summary.url}/__sandbox/ui/`);
    expect(summary.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(summary.workspaces).toHaveLength(2);
    // the default workspace: the README key's (sandbox mode), as GET /__sandbox/workspaces marks it
    expect(summary.workspaces.map((w: { mode: string; default: boolean }) => [w.mode, w.default])).toEqual([
      ['live', false],
      ['sandbox', true],
    ]);
    for (const w of summary.workspaces) {
      expect(Object.keys(w)).toEqual(['id', 'name', 'mode', 'default', 'keys']);
      for (const k of w.keys) expect(Object.keys(k)).toEqual(['id', 'name', 'key', 'scopes']);
    }
    const res = await fetch(`${summary.url}/v1/products?limit=2`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBe('3000');
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(2);
    run.child.kill('SIGTERM');
    const { code, stdout } = await run.exit;
    expect(code).toBe(0);
    // the ready line, then the exit line: nothing else on stdout
    expect(
      stdout
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line)),
    ).toEqual([{ stopped: true, drained: 0, cut: 0, refused: 0 }]);
  });

  it('prints a banner with the URL, each workspace and its keys', async () => {
    const run = runCli(['start', '--in-memory', '--port', '0']);
    await waitForStdout(run, 'Ctrl+C');
    run.child.kill('SIGINT');
    const { code, stdout } = await run.exit;
    expect(code).toBe(0);
    expect(stdout).toMatch(/serving http:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toContain('Aurora Tours');
    expect(stdout).toContain(KEYS.sandboxRead);
    expect(stdout).toMatch(/live/);
  });

  it('a port already in use gets one line on stderr and exit code 1', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, stderr, stdout } = await runCli(['start', '--in-memory', '--port', String(port)]).exit;
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      expect(stderr).toMatch(new RegExp(`sandbox: Port ${port} on 127\\.0\\.0\\.1 is already in use`));
      expect(stdout).toBe('');
    } finally {
      blocker.close();
    }
  });

  it('a corrupt database file is refused with its name, exit 1, and left untouched', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbx-cli-'));
    const file = join(dir, 'db.json');
    await writeFile(file, '{"not": "ours"');
    const { code, stderr } = await runCli(['start', '--data', file, '--port', '0']).exit;
    expect(code).toBe(1);
    expect(stderr).toContain(file);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(file, 'utf8')).toBe('{"not": "ours"');
  });

  it('writes are on disk when acknowledged and survive a restart', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbx-cli-'));
    const file = join(dir, 'db.json');
    const first = runCli(['start', '--data', file, '--port', '0', '--json']);
    const { url } = JSON.parse(await first.firstLine);
    const created = await fetch(`${url}/v1/forms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Durable form', fields: [] }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    first.child.kill('SIGKILL');
    await first.exit;
    const second = runCli(['start', '--data', file, '--port', '0', '--json']);
    const { url: url2, workspaces } = JSON.parse(await second.firstLine);
    const live = workspaces.find((w: { mode: string }) => w.mode === 'live');
    const exported = (await (await fetch(`${url2}/__sandbox/workspaces/${live.id}/export`)).json()) as { data: { forms: { id: string }[] } };
    expect(exported.data.forms.map((f: { id: string }) => f.id)).toContain(id);
    second.child.kill('SIGTERM');
    expect((await second.exit).code).toBe(0);
    const onDisk = await readFile(file, 'utf8');
    expect(onDisk).not.toContain(KEYS.liveFull);
    expect(JSON.parse(onDisk).schemaVersion).toBe(1);
  });

  it('rejects bad flags with one line', async () => {
    // refused while commander reads the flags, before any sandbox: the CLI's own entry in this process
    // (test/helpers/cli-in-process.ts) runs the same code without a Node start
    const { code, stderr } = await runCliInProcess(['start', '--port', 'abc']);
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--port must be a whole number/);
  });
});
