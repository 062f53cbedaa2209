/**
 * The lock follows the real file. Two spellings of one
 * database (a symlink to the file, a path through a symlinked directory, a
 * relative path) are one lock; writes land on the real file and a symlink stays
 * a symlink; a hard-linked database is refused, since every snapshot's rename
 * would split it in two. Without that, `--data link.json` beside a sandbox on
 * `db.json` would take its own `link.json.lock`, and the two write two databases.
 */
import { linkSync, lstatSync, mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, StoreError, type Store } from '../../src/storage/index.ts';
import { runCli } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { put, tempDir } from '../storage/helpers.ts';

const refusal = (open: Promise<{ store: Store }>) =>
  open.then(
    async ({ store }) => {
      await store.close();
      return null;
    },
    (err: unknown) => err as Error,
  );

const ids = async (path: string) => {
  const { store } = await openStore({ path });
  const list = store.list('c', 'ws').map((r) => r.id);
  await store.close();
  return list;
};

describe('the database lock follows the real path', () => {
  it('a symlink to the file is the same lock; writes through it land on the file, and the link stays a link', async () => {
    const dir = tempDir();
    const file = join(dir, 'db.json');
    const link = join(dir, 'link.json');
    const { store } = await openStore({ path: file });
    await store.commit([put('c', 'ws', { id: 'a' })]);
    symlinkSync('db.json', link);

    const error = await refusal(openStore({ path: link }));
    expect(error).toBeInstanceOf(StoreError);
    expect(error!.message).toMatch(/db\.json is in use by process \d+/);
    await store.commit([put('c', 'ws', { id: 'b' })]);
    await store.close();

    // the other side writes now, through the link
    const { store: viaLink } = await openStore({ path: link });
    expect(viaLink.list('c', 'ws').map((r) => r.id)).toEqual(['a', 'b']);
    await viaLink.commit([put('c', 'ws', { id: 'c' })]);
    await viaLink.compact();
    await viaLink.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('db.json');
    expect(await ids(file)).toEqual(['a', 'b', 'c']);
  });

  it('a dangling symlink creates the database at its target', async () => {
    const dir = tempDir();
    const link = join(dir, 'link.json');
    symlinkSync(join(dir, 'data', 'db.json'), link);
    const { store } = await openStore({ path: link });
    await store.commit([put('c', 'ws', { id: 'a' })]);
    await store.compact();
    await store.close();
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(dir, 'data', 'db.json')).isFile()).toBe(true);
    expect(await ids(join(dir, 'data', 'db.json'))).toEqual(['a']);
  });

  it('a path through a symlinked directory, or a relative spelling, is the same lock', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync(join(dir, 'real'), join(dir, 'alias'));
    const { store } = await openStore({ path: join(dir, 'real', 'db.json') });
    await store.commit([put('c', 'ws', { id: 'a' })]);
    for (const spelling of [join(dir, 'alias', 'db.json'), relative(process.cwd(), join(dir, 'alias', '..', 'real', 'db.json'))]) {
      const error = await refusal(openStore({ path: spelling }));
      expect(error, spelling).toBeInstanceOf(StoreError);
      expect(error!.message).toMatch(/is in use by process/);
    }
    await store.close();
    expect(await ids(join(dir, 'alias', 'db.json'))).toEqual(['a']);
  });

  it('a hard-linked database is refused with one line that says why, and the holder keeps writing', async () => {
    const dir = tempDir();
    const file = join(dir, 'db.json');
    const hard = join(dir, 'hard.json');
    const { store } = await openStore({ path: file });
    await store.commit([put('c', 'ws', { id: 'a' })]);
    await store.compact();
    linkSync(file, hard);

    for (const path of [hard, file]) {
      const error = await refusal(openStore({ path }));
      expect(error, path).toBeInstanceOf(StoreError);
      expect(error!.message).toMatch(/has 2 hard links, .* use a symbolic link or a copy instead$/);
      expect(error!.message.split('\n')).toHaveLength(1);
    }
    await store.commit([put('c', 'ws', { id: 'b' })]);
    await store.close();
    expect(await ids(file)).toEqual(['a', 'b']);
  });
});

describe('two `sandbox start`, on a file and on a symlink to it', () => {
  it('the second is refused; after the first stops, the link serves the same database and keeps it one', async () => {
    const dir = tempDir();
    const file = join(dir, 'db.json');
    const link = join(dir, 'link.json');
    symlinkSync(file, link);
    const createForm = async (url: string, name: string) => {
      const res = await fetch(`${url}/v1/forms`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, fields: [] }),
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { id: string }).id;
    };
    const formsOf = async (url: string, workspaces: { id: string; mode: string }[]) => {
      const live = workspaces.find((w) => w.mode === 'live')!;
      const exported = (await (await fetch(`${url}/__sandbox/workspaces/${live.id}/export`)).json()) as { data: { forms: { id: string }[] } };
      return exported.data.forms.map((f) => f.id);
    };

    const first = runCli(['start', '--data', file, '--port', '0', '--json']);
    const { url } = JSON.parse(await first.firstLine);
    const acknowledged = [await createForm(url, 'one'), await createForm(url, 'two')];
    const second = await runCli(['start', '--data', link, '--port', '0', '--json']).exit;
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/^sandbox: .*db\.json is in use by process \d+/);
    acknowledged.push(await createForm(url, 'three'));
    first.child.kill('SIGTERM');
    expect((await first.exit).code).toBe(0);

    const viaLink = runCli(['start', '--data', link, '--port', '0', '--json']);
    const ready = JSON.parse(await viaLink.firstLine);
    acknowledged.push(await createForm(ready.url, 'four'));
    viaLink.child.kill('SIGTERM');
    expect((await viaLink.exit).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);

    const last = runCli(['start', '--data', file, '--port', '0', '--json']);
    const again = JSON.parse(await last.firstLine);
    expect(await formsOf(again.url, again.workspaces)).toEqual(expect.arrayContaining(acknowledged));
    last.child.kill('SIGTERM');
    await last.exit;
  });
});
