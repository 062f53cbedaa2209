/**
 * Hand edits of the database file under `--watch` (docs/storage.md,
 * "What a watched edit does"). The file holds the writes up to its `seq`;
 * the writes since are in the journal, and here. An edit is loaded with
 * those writes applied on top ("apply, then replay", what a restart would do
 * with the same files), or refused when they are no longer at hand: it never
 * rolls an acknowledged write back.
 */
import { basename } from 'node:path';
import { applyOps, type State } from './codec.ts';
import type { FileBackend } from './database-files.ts';
import type { JournalEntry } from './journal-text.ts';
import { parseSnapshotText } from './snapshot-text.ts';
import { StoreError, type FileEdit, type Op } from './types.ts';

/** The writes made since the snapshot file was written (or the state replaced), kept while watching. */
export class RecentWrites {
  #entries: JournalEntry[] = [];
  /** an edit must hold at least the writes up to here: where tracking began, or the last replaceAll */
  #floor: number;

  constructor(seq: number) {
    this.#floor = seq;
  }

  /** A commit; `fileSeq` (the snapshot file's seq) says which older ones are no longer needed. */
  add(seq: number, ops: readonly Op[], fileSeq: number): void {
    this.#entries.push({ seq, ops: ops as Op[] });
    this.#prune(fileSeq);
  }

  /** The whole state was replaced at `seq`: an edit of an older file would undo that. */
  replaced(seq: number): void {
    this.#entries = [];
    this.#floor = seq;
  }

  /**
   * Applies to `state` (built from an edited file that holds the writes up to
   * `after`) every write made since, as of seq `now`. Throws a one-line
   * StoreError when the edit cannot be loaded without losing a write.
   */
  replayOnto(state: State, after: number, now: number, fileSeq: number, path: string, version: number): void {
    this.#prune(fileSeq);
    const name = basename(path);
    const base = Math.max(this.#floor, fileSeq);
    if (after > now) {
      throw new StoreError(
        `${name} says "seq": ${after}, but the sandbox has only reached seq ${now}: set "seq" back to ${fileSeq}, the value it wrote, so it knows which writes the file holds`,
      );
    }
    if (after < base) {
      throw new StoreError(
        `${name} was edited from an older state (seq ${after}) than the one the sandbox has written since (seq ${base}); loading it would undo ${now - after} acknowledged write(s): make the edit again on the file as it is now`,
      );
    }
    const first = this.#entries.findIndex((entry) => entry.seq > after);
    const replay = first === -1 ? [] : this.#entries.slice(first);
    if (replay.length !== now - after || (replay.length > 0 && replay[0]!.seq !== after + 1)) {
      throw new StoreError(`${name} cannot be loaded: the writes since its seq ${after} are not all at hand (this is a bug; the state is kept)`);
    }
    for (const entry of replay) applyOps(state, entry.ops, version);
  }

  #prune(fileSeq: number): void {
    let drop = 0;
    while (drop < this.#entries.length && this.#entries[drop]!.seq <= fileSeq) drop++;
    if (drop > 0) this.#entries.splice(0, drop);
  }
}

/** The database file now: the sandbox's own content (by sha256), or a hand edit, parsed. */
export async function readFileEdit(file: FileBackend): Promise<FileEdit> {
  const known = file.snapshotFile.known;
  const look = await known.look();
  if (look.kind === 'own' || look.kind === 'missing') return { kind: 'own' };
  if (look.kind === 'unchanged') return { kind: 'unchanged' };
  if (look.kind === 'not-a-file') return { kind: 'invalid', hash: look.hash, problem: `${file.path} is not a regular file` };
  try {
    return { kind: 'edited', hash: look.hash, snapshot: parseSnapshotText(look.bytes.toString('utf8'), file.path) };
  } catch (err) {
    return { kind: 'invalid', hash: look.hash, problem: (err as Error).message };
  }
}
