/**
 * Two `sandbox start` on one data file. The second
 * is refused with one line; after kill -9 the stale lock is taken over.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEYS } from '../helpers/sandbox.ts';
import { runCli } from '../helpers/cli.ts';

async function createForm(url: string, name: string): Promise<string> {
  const res = await fetch(`${url}/v1/forms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, fields: [] }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('one sandbox per data file', () => {
  it('a second start exits 1 naming the file and the holder; after kill -9 the next start takes over and keeps every write', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'sbx-lock-')), 'db.json');
    const first = runCli(['start', '--data', file, '--port', '0', '--json']);
    const { url } = JSON.parse(await first.firstLine);
    const ids = [await createForm(url, 'one'), await createForm(url, 'two'), await createForm(url, 'three')];

    const second = await runCli(['start', '--data', file, '--port', '0', '--json']).exit;
    expect(second.code).toBe(1);
    expect(second.stdout).toBe('');
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toMatch(
      new RegExp(
        `^sandbox: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by process ${first.child.pid} \\(started \\d\\d:\\d\\d:\\d\\d\\); stop it or use --data another\\.json\\n$`,
      ),
    );

    const exec = await runCli(['exec', '--data', file, '--', process.execPath, '-e', '0']).exit;
    expect(exec.code).toBe(1);
    expect(exec.stderr).toMatch(/is in use by process/);

    first.child.kill('SIGKILL');
    await first.exit;
    const third = runCli(['start', '--data', file, '--port', '0', '--json']);
    const { url: url3, workspaces } = JSON.parse(await third.firstLine);
    const live = workspaces.find((w: { mode: string }) => w.mode === 'live');
    const exported = (await (await fetch(`${url3}/__sandbox/workspaces/${live.id}/export`)).json()) as { data: { forms: { id: string }[] } };
    expect(exported.data.forms.map((f) => f.id)).toEqual(expect.arrayContaining(ids));
    third.child.kill('SIGTERM');
    const end = await third.exit;
    expect(end.code).toBe(0);
    expect(end.stderr).toMatch(
      new RegExp(`^sandbox: took over the stale lock on .*db\\.json: process ${first.child.pid} \\(started \\d\\d:\\d\\d:\\d\\d\\) is no longer running\\n$`),
    );
  });
});
