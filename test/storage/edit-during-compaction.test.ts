/**
 * Watch mode's one race (found under load by
 * test/chaos/watch-writes.test.ts): a compaction looks at the database file,
 * finds its own, and renames its new snapshot over it. An editor that renames
 * a hand edit in after that look, and before the rename, used to lose the edit
 * unseen: the watcher then found the sandbox's own file and said nothing.
 * Here the editor's save is made exactly in that gap, every time.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SnapshotFile, type SnapshotWrite } from '../../src/storage/snapshot-file.ts';
import { tempDir } from './helpers.ts';

async function trackedFile() {
  const path = join(tempDir(), 'db.json');
  const file = new SnapshotFile(path, false);
  await file.write({ kind: 'snapshot-write', seq: 1, chunks: ['{"v":"first"}'] });
  await file.known.track();
  return { path, file };
}

/** A compaction's write of `text` (spared edits: `unlessEdited`); whether it went in place. */
async function compaction(file: SnapshotFile, text: string, unlessEdited = true): Promise<boolean> {
  const write: SnapshotWrite = { kind: 'snapshot-write', seq: 2, chunks: [text], unlessEdited };
  await file.write(write);
  return write.placed === true;
}

/** The editor's save, run the moment the compaction's look has answered. */
function editAfterTheLook(file: SnapshotFile, path: string, text: string): void {
  const look = file.known.look.bind(file.known);
  file.known.look = async () => {
    const answer = await look();
    writeFileSync(`${path}.swp`, text);
    renameSync(`${path}.swp`, path);
    file.known.look = look;
    return answer;
  };
}

describe('a compaction and a hand edit renamed in while it looks', () => {
  it('leaves the edit in place and says it wrote nothing', async () => {
    const { path, file } = await trackedFile();
    editAfterTheLook(file, path, '{"v":"by hand"}');
    expect(await compaction(file, '{"v":"second"}')).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe('{"v":"by hand"}');
    // the watcher now sees the edit for what it is
    expect((await file.known.look()).kind).toBe('edited');
  });

  it('an unchanged save in that gap is not overwritten either, and the next compaction goes ahead', async () => {
    const { path, file } = await trackedFile();
    editAfterTheLook(file, path, readFileSync(path, 'utf8'));
    expect(await compaction(file, '{"v":"second"}')).toBe(false);
    expect((await file.known.look()).kind).toBe('unchanged');
    expect(await compaction(file, '{"v":"second"}')).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"v":"second"}');
  });

  it('without a watcher (no unlessEdited) a write replaces the file as before', async () => {
    const { path, file } = await trackedFile();
    expect(await compaction(file, '{"v":"second"}', false)).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('{"v":"second"}');
  });
});
