/**
 * What the snapshot file held when the sandbox last wrote or read it, so a
 * watcher can tell a hand edit from a `touch`, an unchanged save (temp file
 * renamed over it) or a copy put back: by the sha256 of its bytes,
 * not its modification time or inode, which all of those change.
 */
import { createHash } from 'node:crypto';
import { constants, statSync } from 'node:fs';
import { open } from 'node:fs/promises';

export interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** What is in the file now, compared with what the sandbox knows it put there. */
export type FileLook =
  /** the very file the sandbox wrote or read last (same inode, size, mtime): not read */
  | { kind: 'own'; identity: FileIdentity }
  /** another file or another mtime, with content the sandbox knows: a touch, an unchanged save */
  | { kind: 'unchanged'; identity: FileIdentity }
  /** content the sandbox did not write: a hand edit */
  | { kind: 'edited'; hash: string; bytes: Buffer }
  /** a FIFO, a device, a directory: never read (it could block forever) */
  | { kind: 'not-a-file'; hash: string }
  | { kind: 'missing' };

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

const sameIdentity = (a: FileIdentity | null, b: FileIdentity) => a !== null && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

export class KnownContent {
  /**
   * Hashes are taken only once a watcher asks (track()): hashing 340 MB costs
   * about 0.5 s, which a start or a compaction without --watch need not pay.
   */
  #tracking = false;
  /** the file as last written or read (or seen unchanged) */
  #identity: FileIdentity | null = null;
  /** counts noteOwn() calls: track() keeps its hash only if no write came in between */
  #writes = 0;
  /**
   * Hashes of the last two contents the sandbox wrote or read: a watcher that
   * opened the file just before the newest rename reads the one before, which
   * is no edit either.
   */
  #own: string[] = [];
  /** the last hand edit a watcher has dealt with (loaded or refused) */
  #handled: string | null = null;

  constructor(readonly path: string) {}

  get tracking(): boolean {
    return this.#tracking;
  }

  /** The sandbox wrote (or read) these bytes (hashed when tracking): `identity` is their file's, from its handle. */
  noteOwn(hash: string | null, identity: FileIdentity): void {
    this.#writes++;
    this.#identity = identity;
    if (hash !== null) this.#own = [this.#own.at(-1) ?? hash, hash];
  }

  /** From now on, hashes are kept: the file's own is taken now, if it is still the one last written or read. */
  async track(): Promise<void> {
    if (this.#tracking) return;
    this.#tracking = true;
    const writes = this.#writes;
    const handle = await open(this.path, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
    if (!handle) return; // no file yet: the first write hashes it
    try {
      const info = await handle.stat();
      if (!sameIdentity(this.#identity, { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs })) return; // changed: an edit
      const hash = sha256(await handle.readFile());
      if (this.#writes === writes) this.#own = [hash];
    } finally {
      await handle.close();
    }
  }

  /** A watcher dealt with the edit `hash` (loaded or refused it): it is no longer news, and may be overwritten. */
  noteHandled(hash: string): void {
    this.#handled = hash;
  }

  knows(hash: string): boolean {
    return this.#own.includes(hash) || this.#handled === hash;
  }

  /**
   * Whether the path still holds the file a look() saw (`null`: no file), by a
   * synchronous stat: called right before a synchronous rename over it, so that
   * a hand edit renamed in after the look is never overwritten unseen; the gap
   * left is two system calls, not a look's reads.
   */
  stillThere(seen: FileIdentity | null): boolean {
    let info;
    try {
      info = statSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return seen === null;
      throw err;
    }
    return seen !== null && sameIdentity(seen, { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs });
  }

  /**
   * Reads the file only when it is not the one last written (one handle: the
   * stat and the bytes agree). Opened non-blocking, so a FIFO put in its
   * place is seen for what it is instead of waiting for a writer forever.
   */
  async look(): Promise<FileLook> {
    let handle;
    try {
      handle = await open(this.path, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
      throw err;
    }
    try {
      const info = await handle.stat();
      const identity = { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs };
      if (!info.isFile()) return { kind: 'not-a-file', hash: `not a file: ${info.ino}` };
      if (sameIdentity(this.#identity, identity)) return { kind: 'own', identity };
      const bytes = await handle.readFile();
      const hash = sha256(bytes);
      if (!this.knows(hash)) return { kind: 'edited', hash, bytes };
      this.#identity = identity; // the next look at this same file is quick, and quiet
      return { kind: 'unchanged', identity };
    } finally {
      await handle.close();
    }
  }
}
