/**
 * The snapshot file's lowdb adapter. The engine writes every snapshot through
 * lowdb: it hands it to `Low` (database-files.ts: `low.data = write; await
 * low.write()`), and lowdb calls write() here, which keeps the write sequence
 * (docs/storage.md, "Write sequence"): the text, produced a slice at a time, is
 * streamed to a temp file, the temp file fsynced, renamed over the snapshot,
 * and the directory fsynced. Without the first fsync a power cut after the
 * rename can leave the new name pointing at empty blocks; without the second the
 * rename itself can be undone while the journal has already been truncated.
 * read() is lowdb's read at open: the file scanned or parsed (snapshot-text.ts).
 *
 * Under --watch it also knows what the file holds (file-content.ts), so that a
 * compaction never overwrites a hand edit nobody has dealt with, and it keeps the
 * snapshot the journal goes on from beside the file.
 */
import { createHash } from 'node:crypto';
import { constants as fsConstants, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { copyFile, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { KnownContent, sha256, type FileIdentity } from './file-content.ts';
import { fsyncDir, isErrno, writeSliced } from './file-io.ts';
import { FILE_LIMITS, readRegularFile } from './regular-file.ts';
import { parseSnapshotBytes, snapshotChunks } from './snapshot-text.ts';
import type { DbSnapshot } from './types.ts';

/**
 * A snapshot as the engine hands it to lowdb: its text in chunks, produced while it is written
 * (a state captured copy-on-write, snapshot-text.ts), so a large database is never one string.
 */
export interface SnapshotWrite {
  readonly kind: 'snapshot-write';
  readonly seq: number;
  readonly chunks: Iterable<string>;
  /** watch mode: not renamed over a hand edit nobody has dealt with yet; kept beside the file instead */
  readonly unlessEdited?: boolean;
  /** the last snapshot of a watching store: what the file held is set aside first, and an unloaded edit reported */
  readonly setAsideEdit?: (aside: string) => void;
  /** set by the adapter: the snapshot went in place (false: a hand edit is there, and it was kept beside it) */
  placed?: boolean;
}

/** What lowdb's `Low` holds for the snapshot file: what was read at open (then its header only), or the snapshot being written. */
export type SnapshotData = DbSnapshot | SnapshotWrite;

const isSnapshotWrite = (data: SnapshotData): data is SnapshotWrite => (data as Partial<SnapshotWrite>).kind === 'snapshot-write';

export class SnapshotFile implements Adapter<SnapshotData> {
  readonly #temp: string;
  /** what the file held when last written or read: a watcher's hand edit is anything else */
  readonly known: KnownContent;

  constructor(
    readonly path: string,
    private readonly fsync: boolean,
  ) {
    this.#temp = join(dirname(path), `.${basename(path)}.tmp`);
    this.known = new KnownContent(path);
  }

  async read(): Promise<DbSnapshot | null> {
    let bytes: Buffer;
    let identity = { ino: 0, size: 0, mtimeMs: 0 };
    try {
      // a regular file only: a FIFO would block a file-system thread forever, /dev/zero fill memory
      bytes = await readRegularFile(this.path, {
        maxBytes: FILE_LIMITS.database,
        onStats: (info) => (identity = { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs }),
      });
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return null;
      throw err;
    }
    this.known.noteOwn(this.known.tracking ? sha256(bytes) : null, identity);
    return parseSnapshotBytes(bytes, this.path);
  }

  /**
   * Writes a snapshot: the engine's (a SnapshotWrite, whose `placed` it sets), or a whole
   * DbSnapshot object, serialised in the same chunks.
   */
  async write(data: SnapshotData): Promise<void> {
    if (!isSnapshotWrite(data)) {
      await this.#writeChunks(snapshotChunks(data), {});
      return;
    }
    data.placed = await this.#writeChunks(data.chunks, data);
  }

  /**
   * The write sequence, for text given in pieces (serialised slice by slice).
   * With `unlessEdited`, the rename is not done when the file now holds a hand
   * edit nobody has dealt with yet (watch mode: the watcher loads it, with the
   * writes since on top): returns false, and the file is left as it is.
   */
  async #writeChunks(chunks: Iterable<string>, options: { unlessEdited?: boolean; setAsideEdit?: (aside: string) => void }): Promise<boolean> {
    const handle = await open(this.#temp, 'w');
    const hash = this.known.tracking ? createHash('sha256') : null;
    let identity;
    /** with unlessEdited: the file the look found (null: none), which the rename may replace */
    let replaces: FileIdentity | null | undefined;
    try {
      await writeSliced(handle, chunks, hash);
      if (this.fsync) await handle.sync();
      // the identity of these bytes, from their own handle: a stat of the path after
      // the rename could see a file someone renamed over it in between
      const info = await handle.stat();
      identity = { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs };
      if (options.unlessEdited) {
        const look = await this.known.look();
        if (look.kind === 'edited') return await this.#keepBeside(handle);
        // watched, this snapshot is also kept beside the file, before it goes in place: an editor
        // may save an older copy over it at any moment, and a kill -9 before the watcher deals with
        // that copy must still find the snapshot the journal goes on from (open-store.ts, adoptBeside)
        await this.#copyBeside(this.#temp);
        // not a file (a FIFO put there): replaced, as without a watcher
        if (look.kind !== 'not-a-file') replaces = look.kind === 'missing' ? null : look.identity;
      }
    } catch (err) {
      await handle.close().catch(() => undefined);
      await unlink(this.#temp).catch(() => undefined);
      throw err;
    }
    await handle.close();
    if (options.setAsideEdit) {
      this.#replaceSettingAside(hash?.digest('hex') ?? null, identity, options.setAsideEdit);
      if (this.fsync) await fsyncDir(dirname(this.path));
      return true;
    }
    // Watch mode: the look above took reads and awaits, during which an editor may have renamed a
    // hand edit in; checked again, synchronously, with a synchronous rename right after it (under
    // load, an edit lost in that gap was seen as the sandbox's own file and never loaded)
    if (replaces !== undefined && !this.known.stillThere(replaces)) return await this.#keepBeside(null);
    const digest = hash?.digest('hex') ?? null;
    if (replaces !== undefined) {
      // noted before the rename: a watcher may look at the file as soon as it is there
      this.known.noteOwn(digest, identity);
      renameSync(this.#temp, this.path);
    } else {
      this.known.noteOwn(digest, identity);
      await rename(this.#temp, this.path);
    }
    if (this.fsync) await fsyncDir(dirname(this.path));
    return true;
  }

  /**
   * The last snapshot of a watching sandbox (at stop): it goes in place whatever the file
   * holds, so the file holds every write. What was there is first renamed aside, then looked at
   * where nobody can rename over it: the sandbox's own bytes (or an edit the watcher already
   * loaded or refused) are deleted; a hand edit nobody dealt with is kept under a name that says
   * so, and reported. Only an edit renamed in between the two synchronous renames is lost.
   */
  #replaceSettingAside(digest: string | null, identity: FileIdentity, report: (aside: string) => void): void {
    const aside = `${this.path}.unloaded-edit-${new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}`;
    let moved = true;
    try {
      renameSync(this.path, aside);
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
      moved = false;
    }
    this.known.noteOwn(digest, identity);
    renameSync(this.#temp, this.path);
    this.#dropBeside();
    if (!moved) return;
    if (this.#isKnown(aside)) unlinkSync(aside);
    else report(basename(aside));
  }

  #isKnown(file: string): boolean {
    const info = statSync(file);
    if (!info.isFile()) return false;
    return this.known.knows(sha256(readFileSync(file)));
  }

  /**
   * A snapshot not put in place (a hand edit is there, watch mode): kept beside the file instead
   * (`<file>.sandbox-latest`), because the journal now goes on from it. If the process dies before
   * the watcher deals with the edit, the next start finds the journal does not continue the edited
   * file, and starts from this one (open-store.ts); false, as #writeChunks answers.
   */
  async #keepBeside(handle: FileHandle | null): Promise<false> {
    await handle?.close();
    await rename(this.#temp, this.besidePath);
    if (this.fsync) await fsyncDir(dirname(this.path));
    return false;
  }

  /**
   * Copies `from` (a snapshot the sandbox wrote) to the beside path, whole or not at all: a copy
   * (a clone where the file system can), fsynced like the snapshot, then renamed into place.
   */
  async #copyBeside(from: string, stillOwn: () => boolean = () => true): Promise<void> {
    const temp = `${this.#temp}.beside`;
    await copyFile(from, temp, fsConstants.COPYFILE_FICLONE);
    if (!stillOwn()) return await unlink(temp); // edited while copied: the copy is not the sandbox's
    if (this.fsync) {
      const copy = await open(temp, 'r+');
      try {
        await copy.sync();
      } finally {
        await copy.close();
      }
    }
    await rename(temp, this.besidePath);
  }

  /**
   * When a watcher starts: the snapshot the journal goes on from is copied beside the file, as each
   * later compaction's is (#writeChunks), if the file still holds the sandbox's own bytes.
   */
  async keepCopyBeside(): Promise<void> {
    if (!this.known.tracking) return;
    const look = await this.known.look();
    if (look.kind !== 'own' && look.kind !== 'unchanged') return;
    await this.#copyBeside(this.path, () => this.known.stillThere(look.identity));
  }

  /** The file holds the sandbox's own snapshot again: one kept beside an edit is not needed. */
  #dropBeside(): void {
    try {
      unlinkSync(this.besidePath);
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
    }
  }

  /**
   * At a stop that left the sandbox's last snapshot in place (store.ts #close): no copy is needed
   * beside it; one left there would only be found by a later start that has no use for it.
   */
  dropBeside(): void {
    this.#dropBeside();
  }

  /** where a snapshot kept beside an unloaded edit is, and, under --watch, the last one written (see #keepBeside, #copyBeside) */
  get besidePath(): string {
    return `${this.path}.sandbox-latest`;
  }
}
