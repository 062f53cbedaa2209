/**
 * Under `sandbox start --watch`, a change of the database
 * file from outside never loses an acknowledged write. Eight writers post
 * forms while the file is touched, saved unchanged the way editors save
 * (a temp file renamed over it), or really edited; then the sandbox is
 * stopped and started again, and every acknowledged form must be there.
 */
import { mkdtemp, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exported, formWriters, startSandbox, stopSandbox, until, type FormWriters, type Row } from './process.ts';

const WRITERS = 8;
/** acknowledged writes before the change, and again after it was handled */
const BATCH = 300;

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** An editor's save: the whole text to a temp file beside it, renamed over the original. */
async function editorSave(file: string, text: string | Buffer): Promise<void> {
  const temp = join(file, '..', `.db.json.${process.pid}.swp`);
  await writeFile(temp, text);
  await rename(temp, file);
}

type Change = (file: string) => Promise<void>;

/**
 * A change that reads the file and saves it back is made while the writers
 * hold back and the file holds every write (its journal empty): no compaction
 * can then come between the read and the save, and make the save a copy of an
 * older file by chance (on a loaded machine that happened
 * five times in a row). The writers go on the moment it is saved, so the
 * watcher loads it with their writes since applied on top.
 */
async function quietly(writers: FormWriters, file: string, change: Change): Promise<void> {
  await writers.pause();
  await until(async () => (await stat(`${file}.journal`).catch(() => ({ size: 0 }))).size === 0, 'the file to hold every write');
  try {
    await change(file);
  } finally {
    writers.resume();
  }
}

/**
 * Runs `change` under eight writers, waits for the watcher's line that
 * `expectLine` matches (the change was handled; `retryLine`: refused, make it
 * again), writes some more, restarts, and returns what the new process holds.
 */
async function underWriters(change: Change, expectLine: RegExp, retryLine?: RegExp, quietIfRewritten = false, readsTheFile = false) {
  const dir = await mkdtemp(join(tmpdir(), 'tcs-watch-chaos-'));
  dirs.push(dir);
  const file = join(dir, 'db.json');
  const { run, url } = await startSandbox(file, ['--watch']);
  const writers = formWriters(url, WRITERS, 'watch', undefined, 'http');
  try {
    await until(() => writers.acked.size >= BATCH, `${BATCH} acknowledged writes`);
    for (let attempt = 1; ; attempt++) {
      const seen = run.output().stderr.length;
      await (readsTheFile ? quietly(writers, file, change) : change(file));
      const changed = (await stat(file)).ino;
      const handled = () => run.output().stderr.slice(seen);
      // handled: the watcher's line, or (for an unchanged file, which a compaction may replace
      // before the watcher reads it, leaving nothing to report) the file written again since
      const done = async () => expectLine.test(handled()) || (quietIfRewritten && (await stat(file)).ino !== changed);
      await until(async () => (await done()) || (retryLine?.test(handled()) ?? false), `the watcher to handle the change (${expectLine})`).catch(
        (err: Error) => {
          throw new Error(`${err.message}; the sandbox said since the change:\n${handled() || '(nothing)'}`);
        },
      );
      if (await done()) break;
      if (attempt === 5) throw new Error(`the change was refused ${attempt} times: ${handled()}`);
    }
    const after = writers.acked.size;
    await until(() => writers.acked.size >= after + BATCH, `${BATCH} more acknowledged writes`);
  } finally {
    await writers.stop();
  }
  await stopSandbox(run);
  const again = await startSandbox(file);
  try {
    const data = await exported(again.url, again.workspaceId);
    const forms = new Set(data.forms!.map((f) => f.id));
    const lost = [...writers.acked].filter((id) => !forms.has(id));
    return { lost, acked: writers.acked.size, data, stderr: run.output().stderr };
  } finally {
    await stopSandbox(again.run);
  }
}

describe('chaos: --watch under eight concurrent writers, then a restart', () => {
  it('a touch of db.json changes nothing', async () => {
    const result = await underWriters(
      async (file) => {
        const now = new Date();
        await utimes(file, now, now);
      },
      /db\.json is unchanged/,
      undefined,
      true,
    );
    expect(result.lost.length, `touch: ${result.lost.length} of ${result.acked} acknowledged writes lost\n${result.stderr}`).toBe(0);
  }, 120_000);

  it('an unchanged editor-style save (temp file + rename) changes nothing', async () => {
    const result = await underWriters(async (file) => editorSave(file, await readFile(file)), /db\.json is unchanged/, undefined, true, true);
    expect(result.lost.length, `editor save: ${result.lost.length} of ${result.acked} acknowledged writes lost\n${result.stderr}`).toBe(0);
  }, 120_000);

  it('a real hand edit is loaded and every write since is applied on top', async () => {
    let productId = '';
    let edits = 0;
    const result = await underWriters(
      async (file) => {
        edits += 1; // one attempt: made quietly, it cannot be refused as a copy of an older file
        const db = JSON.parse(await readFile(file, 'utf8')) as { collections: Record<string, Record<string, Record<string, Row>>> };
        const live = Object.keys(db.collections.products!).find((ws) => !ws.startsWith('~') && Object.keys(db.collections.products![ws]!).length > 0)!;
        const product = Object.values(db.collections.products![live]!)[0]!;
        productId = product.id;
        product.title = `Edited by hand under load, edit ${edits}`;
        await editorSave(file, JSON.stringify(db, null, 2));
      },
      /db\.json was edited; loaded, with the \d+ write\(s\) made since its seq \d+ applied on top/,
      undefined,
      false,
      true,
    );
    expect(result.lost.length, `real edit: ${result.lost.length} of ${result.acked} acknowledged writes lost\n${result.stderr}`).toBe(0);
    expect(result.data.products!.find((p) => p.id === productId)?.title).toBe(`Edited by hand under load, edit ${edits}`);
  }, 120_000);
});
