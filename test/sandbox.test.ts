import { mkdtemp, readFile, writeFile, mkdir, copyFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../src/index.ts';
import { DEFAULT_FIXTURES_DIR } from '../src/config.ts';
import { runCli } from './helpers/cli.ts';

async function seededFile(seed: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sbx-seed-'));
  const file = join(dir, 'db.json');
  const sandbox = await createSandbox({ listen: false, storage: file, clock: 'manual', seed });
  await sandbox.stop();
  return readFile(file, 'utf8');
}

describe('createSandbox', () => {
  it('the same seed gives a byte-identical database file; another seed does not', async () => {
    const a = await seededFile(7);
    const b = await seededFile(7);
    const c = await seededFile(8);
    expect(a.length).toBeGreaterThan(100_000);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('a database file is reused on the next start instead of re-seeded', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbx-reuse-'));
    const file = join(dir, 'db.json');
    const first = await createSandbox({ listen: false, storage: file, clock: 'manual' });
    const workspaceId = first.workspaces[0]!.id;
    await first.store.commit([{ type: 'put', collection: 'people', workspaceId, row: { id: 'ppl_marker', firstName: 'Kept' } }]);
    await first.stop();
    const second = await createSandbox({ listen: false, storage: file, clock: 'manual', seed: 999 });
    expect(second.store.get('people', workspaceId, 'ppl_marker')).toMatchObject({ firstName: 'Kept' });
    await second.reset();
    expect(second.store.get('people', workspaceId, 'ppl_marker')).toBeUndefined();
    await second.stop();
  });

  it('rejects invalid options with a message naming the option', async () => {
    await expect(createSandbox({ listen: false, port: 70_000 })).rejects.toThrow(/Invalid sandbox option port/);
    await expect(createSandbox({ listen: false, clockStart: 'yesterday' })).rejects.toThrow(/Invalid clock start/);
  });

  it('sandbox start with a broken fixture file fails in one line naming the file and the JSON path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbx-fx-'));
    await mkdir(join(dir, 'fixtures'));
    for (const name of await readdir(DEFAULT_FIXTURES_DIR)) await copyFile(join(DEFAULT_FIXTURES_DIR, name), join(dir, 'fixtures', name));
    const target = join(dir, 'fixtures', 'aurora-tours.json');
    const data = JSON.parse(await readFile(target, 'utf8'));
    data.workspace.keys[1].scopes = ['not a scope'];
    await writeFile(target, JSON.stringify(data));
    const { code, stderr, stdout } = await runCli(['start', '--in-memory', '--port', '0', '--fixtures', join(dir, 'fixtures')]).exit;
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain('aurora-tours.json: workspace.keys[1].scopes[0]: Invalid scope');
  });
});
