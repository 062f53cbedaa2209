import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Low } from 'lowdb';
import { JOURNAL_COMPACT_MIN_BYTES, type FileBackend } from '../../src/storage/database-files.ts';
import { FileWriter } from '../../src/storage/file-writer.ts';
import type { SnapshotData } from '../../src/storage/snapshot-file.ts';
import { StoreError, type StoreStats } from '../../src/storage/types.ts';

/**
 * The file side of the store on its own (src/storage/file-writer.ts; cases a
 * mutation test found unchecked): group commit, when a snapshot is written instead of a
 * journal line, the hold of a new file, a failed write and what follows it, and
 * watch mode's spared hand edit. Snapshots go through lowdb's Low, as in the
 * store, over a stand-in adapter that records what it was asked to write; the
 * journal is a real file.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'file-writer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Fake {
  writer: FileWriter;
  stats: StoreStats;
  snapshots: { seq: number; text: string; unlessEdited: boolean }[];
  journal: () => string;
  /** the next snapshot write throws this */
  failNext: (err: Error | null) => void;
  /** a hand edit is on disk: an `unlessEdited` write does nothing */
  edited: (yes: boolean) => void;
  seq: { value: number };
  /** captures whose copy-on-write window is still open (done() not called) */
  openCaptures: () => number;
}

function fake(opts: { onDisk?: boolean; seq?: number; hold?: boolean; compactAfter?: number; fsync?: boolean } = {}): Fake {
  const path = join(dir, 'db.json');
  const journalPath = join(dir, 'db.journal');
  const snapshots: Fake['snapshots'] = [];
  let fail: Error | null = null;
  let edited = false;
  const seq = { value: opts.seq ?? 0 };
  const adapter = {
    read: async () => null,
    async write(data: SnapshotData) {
      if (!('chunks' in data)) throw new Error('the writer hands Low a snapshot in chunks');
      if (fail) {
        const err = fail;
        fail = null;
        throw err;
      }
      data.placed = !(data.unlessEdited && edited);
      if (!data.placed) return;
      const text = [...data.chunks].join('');
      writeFileSync(path, text);
      snapshots.push({ seq: Number(JSON.parse(text).seq), text, unlessEdited: data.unlessEdited === true });
    },
  };
  const low = new Low<SnapshotData>(adapter, { schemaVersion: 1, seq: 0, collections: {} });
  const file = { path, journalPath, dir, fsync: opts.fsync ?? true, compactAfter: opts.compactAfter ?? 1000, low } as unknown as FileBackend;
  const stats: StoreStats = { commits: 0, flushes: 0, journalBytes: 0, snapshots: 0, journalledCommits: 0 } as StoreStats;
  let open = 0;
  const source = {
    capture: () => {
      open++;
      const at = seq.value;
      return { seq: at, chunks: [`{"seq":${at}}`], done: () => void open-- };
    },
  };
  const writer = new FileWriter(file, stats, source, { onDisk: opts.onDisk ?? true, seq: opts.seq ?? 0, hold: opts.hold });
  return {
    writer,
    stats,
    snapshots,
    journal: () => {
      try {
        return readFileSync(journalPath, 'utf8');
      } catch {
        return '<none>';
      }
    },
    failNext: (err) => void (fail = err),
    edited: (yes) => void (edited = yes),
    seq,
    openCaptures: () => open,
  };
}

const line = (seq: number) => `${JSON.stringify({ seq, ops: [] })}\n`;

describe('group commit', () => {
  it('commits issued in one tick are one write of the journal', async () => {
    const f = fake();
    await Promise.all([f.writer.append(line(1)), f.writer.append(line(2)), f.writer.append(line(3))]);
    expect(f.journal()).toBe(line(1) + line(2) + line(3));
    expect(f.stats).toMatchObject({ flushes: 1, journalledCommits: 3, journalBytes: (line(1) + line(2) + line(3)).length, snapshots: 0 });
    await f.writer.append(line(4));
    expect(f.stats).toMatchObject({ flushes: 2, journalledCommits: 4 });
    expect(f.journal()).toBe(line(1) + line(2) + line(3) + line(4));
    await f.writer.release();
  });

  it('a single line is written as it is', async () => {
    const f = fake();
    await f.writer.append('{"seq":1,"ops":[{"type":"delete","collection":"c","workspaceId":"w","id":"é"}]}\n');
    expect(f.journal()).toBe('{"seq":1,"ops":[{"type":"delete","collection":"c","workspaceId":"w","id":"é"}]}\n');
    expect(f.stats.journalBytes).toBe(Buffer.byteLength(f.journal()));
    await f.writer.release();
  });

  it('flush waits for what is queued and resolves at once when nothing is', async () => {
    const f = fake();
    const appended = f.writer.append(line(1));
    await f.writer.flush();
    expect(f.journal()).toBe(line(1));
    await appended;
    await f.writer.flush();
    expect(f.stats.flushes).toBe(1);
    await f.writer.release();
  });
});

describe('snapshots', () => {
  it('the first write of a new file is a snapshot, not a journal line', async () => {
    const f = fake({ onDisk: false });
    f.seq.value = 1;
    await f.writer.append(line(1));
    expect(f.snapshots).toEqual([{ seq: 1, text: '{"seq":1}', unlessEdited: false }]);
    expect(f.journal()).toBe('');
    expect(f.writer.snapshotSeq).toBe(1);
    expect(f.stats).toMatchObject({ snapshots: 1, journalledCommits: 0, flushes: 0 });
    f.seq.value = 2;
    await f.writer.append(line(2));
    expect(f.journal()).toBe(line(2));
    await f.writer.release();
  });

  it('after compactAfter journalled commits the journal is compacted into a snapshot', async () => {
    const f = fake({ compactAfter: 2 });
    f.seq.value = 1;
    await f.writer.append(line(1));
    expect(f.stats.snapshots).toBe(0);
    f.seq.value = 2;
    await f.writer.append(line(2));
    await f.writer.flush();
    expect(f.snapshots.map((s) => s.seq)).toEqual([2]);
    expect(f.journal()).toBe('');
    expect(f.stats).toMatchObject({ snapshots: 1, journalledCommits: 0 });
    expect(f.writer.snapshotSeq).toBe(2);
    expect(f.writer.dirty(2)).toBe(false);
    expect(f.writer.dirty(3)).toBe(true);
    expect(f.openCaptures()).toBe(0);
    await f.writer.release();
  });

  it('one commit short of compactAfter stays in the journal', async () => {
    const f = fake({ compactAfter: 3 });
    await f.writer.append(line(1));
    await f.writer.append(line(2));
    await f.writer.flush();
    expect(f.stats.snapshots).toBe(0);
    expect(f.writer.dirty(0)).toBe(true); // journalled commits are not in the snapshot
    await f.writer.release();
  });

  it('snapshotNext and compact write a snapshot; compact before any write does nothing', async () => {
    const fresh = fake({ onDisk: false });
    await fresh.writer.compact(0);
    expect(fresh.snapshots).toEqual([]);
    expect(fresh.writer.snapshotSeq).toBe(0);
    await fresh.writer.release();

    const f = fake({ seq: 4 });
    expect(f.writer.snapshotSeq).toBe(4);
    expect(f.writer.dirty(4)).toBe(false);
    await f.writer.append(line(5));
    f.seq.value = 5;
    await f.writer.compact(5);
    expect(f.snapshots.map((s) => s.seq)).toEqual([5]);
    expect(f.journal()).toBe('');
    f.seq.value = 6;
    await f.writer.snapshotNext();
    expect(f.snapshots.map((s) => s.seq)).toEqual([5, 6]);
    await f.writer.release();
  });

  it('a new file that is not on disk starts at snapshot seq 0 whatever it was given', () => {
    expect(fake({ onDisk: false, seq: 9 }).writer.snapshotSeq).toBe(0);
  });
});

describe('the hold of a new file', () => {
  it('nothing is written until a commit or startWriting ends the hold', async () => {
    const f = fake({ onDisk: false, hold: true });
    expect(f.writer.holding).toBe(true);
    await f.writer.startWriting();
    expect(f.writer.holding).toBe(false);
    expect(f.snapshots).toEqual([]);
    await f.writer.startWriting(); // not holding: a flush
    expect(f.snapshots).toEqual([]);
    await f.writer.release();
  });

  it('a commit ends the hold at once', async () => {
    const f = fake({ onDisk: false, hold: true });
    f.seq.value = 1;
    await f.writer.append(line(1));
    expect(f.writer.holding).toBe(false);
    expect(f.snapshots.map((s) => s.seq)).toEqual([1]);
    await f.writer.release();
  });

  it('a flush ends it too, and a compact writes what was asked', async () => {
    const f = fake({ onDisk: false, hold: true });
    await f.writer.flush();
    expect(f.writer.holding).toBe(false);
    const g = fake({ onDisk: false, hold: true });
    g.seq.value = 3;
    await g.writer.compact(3);
    expect(g.writer.holding).toBe(false);
    expect(g.snapshots.map((s) => s.seq)).toEqual([3]);
    await g.writer.release();
    await f.writer.release(); // its journal is open: left to the GC, Node warns on stderr (a CLI test's stderr, once)
  });

  it('only a new file is held', () => {
    expect(fake({ onDisk: true, hold: true }).writer.holding).toBe(false);
    expect(fake({ onDisk: false }).writer.holding).toBe(false);
  });
});

describe('a failed write', () => {
  it('rejects the commits with a StoreError naming the file; the next write is a snapshot', async () => {
    const f = fake({ onDisk: false });
    f.failNext(new Error('disk full\nreally'));
    const failed = f.writer.append(line(1));
    await expect(failed).rejects.toThrow(StoreError);
    await expect(failed).rejects.toThrow(`Cannot write database ${join(dir, 'db.json')}: disk full really`);
    expect(f.writer.dirty(0)).toBe(true);
    f.seq.value = 2;
    await f.writer.flush();
    expect(f.snapshots.map((s) => s.seq)).toEqual([2]);
    expect(f.writer.dirty(2)).toBe(false);
    expect(f.openCaptures()).toBe(0); // the failed write ended its capture too
    await f.writer.release();
  });

  it('after a failure the journal is not appended to before a snapshot', async () => {
    const f = fake({ compactAfter: 1 });
    await f.writer.append(line(1)); // journal, then compaction due: a snapshot
    await f.writer.flush();
    expect(f.stats.snapshots).toBe(1);
    f.failNext(new Error('EIO'));
    await f.writer.snapshotNext().catch(() => undefined);
    f.seq.value = 2;
    await f.writer.append(line(2));
    expect(f.journal()).toBe('');
    expect(f.snapshots.map((s) => s.seq)).toEqual([0, 2]);
    await f.writer.release();
  });
});

describe('watch mode: a spared hand edit', () => {
  it('a compaction does not overwrite an edit: the batch goes to the journal until compact()', async () => {
    const f = fake({ compactAfter: 1 });
    f.writer.spareEdits();
    f.edited(true);
    await f.writer.append(line(1));
    await f.writer.append(line(2));
    await f.writer.flush();
    expect(f.snapshots).toEqual([]);
    expect(f.journal()).toBe(line(1) + line(2));
    f.edited(false);
    f.seq.value = 2;
    await f.writer.compact(2);
    expect(f.snapshots).toEqual([{ seq: 2, text: '{"seq":2}', unlessEdited: true }]);
    expect(f.journal()).toBe('');
    await f.writer.release();
  });

  it('without spareEdits a compaction writes over the file', async () => {
    const f = fake({ compactAfter: 1 });
    f.edited(true);
    f.seq.value = 1;
    await f.writer.append(line(1));
    await f.writer.flush();
    expect(f.snapshots.map((s) => [s.seq, s.unlessEdited])).toEqual([[1, false]]);
    await f.writer.release();
  });
});

describe('truncateJournal', () => {
  it('empties the journal found at open', async () => {
    const f = fake();
    writeFileSync(join(dir, 'db.journal'), line(1));
    await f.writer.truncateJournal();
    expect(f.journal()).toBe('');
    await f.writer.release();
  });
});

/** The prototype of node:fs/promises' FileHandle, whose methods the writer calls on its journal. */
async function fileHandlePrototype(): Promise<{ datasync: () => Promise<void>; write: (...args: unknown[]) => Promise<{ bytesWritten: number }> }> {
  const handle = await open(join(dir, 'probe'), 'w');
  await handle.close();
  return Object.getPrototypeOf(handle);
}

describe('durability: the journal is fdatasync-ed before a commit resolves', () => {
  afterEach(() => vi.restoreAllMocks());

  it('with fsync on: after each append, after a snapshot empties the journal, and after truncateJournal', async () => {
    const datasync = vi.spyOn(await fileHandlePrototype(), 'datasync');
    const f = fake({ compactAfter: 2 });
    await f.writer.append(line(1));
    expect(datasync).toHaveBeenCalledTimes(1);
    await f.writer.append(line(2));
    expect(datasync).toHaveBeenCalledTimes(2);
    f.seq.value = 2;
    await f.writer.flush(); // compaction due: the journal is truncated, then synced
    expect(f.stats.snapshots).toBe(1);
    expect(datasync).toHaveBeenCalledTimes(3);
    await f.writer.truncateJournal();
    expect(datasync).toHaveBeenCalledTimes(4);
    await f.writer.release();
  });

  it('with fsync off (storage option fsync: false): never', async () => {
    const datasync = vi.spyOn(await fileHandlePrototype(), 'datasync');
    const f = fake({ compactAfter: 2, fsync: false });
    await f.writer.append(line(1));
    await f.writer.append(line(2));
    f.seq.value = 2;
    await f.writer.flush();
    await f.writer.truncateJournal();
    expect(f.stats).toMatchObject({ snapshots: 1, flushes: 2 });
    expect(datasync).not.toHaveBeenCalled();
    await f.writer.release();
  });
});

describe('a short write of the journal', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is continued where it stopped until the whole batch is written', async () => {
    const proto = await fileHandlePrototype();
    const write = proto.write;
    const calls: number[] = [];
    vi.spyOn(proto, 'write').mockImplementation(function (this: unknown, buffer: unknown, offset: unknown, length: unknown) {
      const short = Math.min(Number(length), 7); // as a disk that takes 7 bytes at a time
      calls.push(short);
      return write.call(this, buffer, offset, short);
    });
    const f = fake();
    const lines = line(1) + line(2) + line(3);
    await Promise.all([f.writer.append(line(1)), f.writer.append(line(2)), f.writer.append(line(3))]);
    expect(f.journal()).toBe(lines);
    expect(calls.reduce((a, b) => a + b, 0)).toBe(Buffer.byteLength(lines));
    expect(calls.length).toBe(Math.ceil(Buffer.byteLength(lines) / 7));
    expect(f.stats).toMatchObject({ flushes: 1, journalBytes: Buffer.byteLength(lines), journalledCommits: 3 });
    await f.writer.release();
  });
});

describe(`compaction by journal size: ${JOURNAL_COMPACT_MIN_BYTES} bytes at least, or the snapshot's size`, () => {
  /** one journal line of exactly `bytes` bytes */
  const sized = (bytes: number) => `${'x'.repeat(bytes - 1)}\n`;

  it('a journal of exactly the minimum is compacted once that write is done; one byte less is not', async () => {
    const short = fake();
    await short.writer.append(sized(JOURNAL_COMPACT_MIN_BYTES - 1));
    await short.writer.flush();
    expect(short.stats).toMatchObject({ snapshots: 0, journalBytes: JOURNAL_COMPACT_MIN_BYTES - 1 });
    await short.writer.release();

    const f = fake();
    f.seq.value = 1;
    await f.writer.append(sized(JOURNAL_COMPACT_MIN_BYTES));
    await f.writer.flush();
    expect(f.snapshots.map((s) => s.seq)).toEqual([1]);
    expect(f.journal()).toBe('');
    // the count starts again from the snapshot
    await f.writer.append(line(2));
    await f.writer.flush();
    expect(f.stats.snapshots).toBe(1);
    expect(f.journal()).toBe(line(2));
    await f.writer.release();
  });

  it('a snapshot found at open that is larger than the minimum raises the bar to its own size', async () => {
    const extra = 4096;
    writeFileSync(join(dir, 'db.json'), 'y'.repeat(JOURNAL_COMPACT_MIN_BYTES + extra));
    const f = fake();
    await f.writer.append(sized(JOURNAL_COMPACT_MIN_BYTES));
    await f.writer.flush();
    await f.writer.append(sized(extra - 1));
    await f.writer.flush();
    expect(f.stats.snapshots).toBe(0);
    f.seq.value = 3;
    await f.writer.append(sized(1));
    await f.writer.flush();
    expect(f.snapshots.map((s) => s.seq)).toEqual([3]);
    expect(f.journal()).toBe('');
    await f.writer.release();
  });
});

describe('the drain loop, to its end', () => {
  it('startWriting on a writer that holds nothing is a flush: it waits for the write in flight', async () => {
    const f = fake();
    const appended = f.writer.append(line(1));
    await null; // the drain has taken the batch: nothing pending, a write in flight
    await null;
    await f.writer.startWriting();
    expect(f.journal()).toBe(line(1));
    await appended;
    await f.writer.release();
  });

  it('a writer that never wrote releases cleanly', async () => {
    const f = fake();
    await expect(f.writer.release()).resolves.toBeUndefined();
    expect(f.journal()).toBe('<none>');
  });

  it('a compaction due after a batch runs in the same drain: release finds it done, with no other write', async () => {
    const f = fake({ compactAfter: 1 });
    f.seq.value = 1;
    await f.writer.append(line(1));
    await f.writer.release(); // waits for the drain loop, asks nothing more of it
    expect(f.snapshots.map((s) => s.seq)).toEqual([1]);
    expect(f.journal()).toBe('');
  });

  it('compaction by count goes on after the first one', async () => {
    const f = fake({ compactAfter: 1 });
    for (const seq of [1, 2, 3]) {
      f.seq.value = seq;
      await f.writer.append(line(seq));
      await f.writer.flush();
    }
    expect(f.snapshots.map((s) => s.seq)).toEqual([1, 2, 3]);
    await f.writer.release();
  });

  it('a snapshot asked for during the hold waits for it too', async () => {
    const f = fake({ onDisk: false, hold: true });
    const asked = f.writer.snapshotNext();
    await Promise.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(f.snapshots).toEqual([]);
    expect(f.writer.holding).toBe(true);
    f.seq.value = 1;
    await f.writer.startWriting();
    await asked;
    expect(f.snapshots.map((s) => s.seq)).toEqual([1]);
    await f.writer.release();
  });

  it('a batch that arrives when a spared edit refuses the compaction still reaches the journal', async () => {
    const f = fake({ compactAfter: 1 });
    f.writer.spareEdits();
    f.edited(true);
    f.stats.journalledCommits = 1; // a compaction is due as this batch is written
    await f.writer.append(line(1));
    expect(f.snapshots).toEqual([]);
    expect(f.journal()).toBe(line(1));
    await f.writer.release();
  });

  it('a failed write names its cause; a failed compaction with no batch waiting is retried at the next flush', async () => {
    const f = fake({ onDisk: false });
    const disk = new Error('ENOSPC');
    f.failNext(disk);
    const failed = await f.writer.append(line(1)).catch((err: unknown) => err as StoreError);
    expect((failed as StoreError).cause).toBe(disk);
    f.seq.value = 1;
    await f.writer.flush();

    const g = fake({ compactAfter: 1 });
    g.failNext(new Error('EIO')); // the compaction after this batch fails; nobody waits on it
    await g.writer.append(line(1));
    g.seq.value = 1;
    await g.writer.flush(); // nothing else awaits the failed drain: it must end quietly
    expect(g.snapshots.map((s) => s.seq)).toEqual([1]);
    await g.writer.release();
    await f.writer.release();
  });
});
