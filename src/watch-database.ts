/**
 * `sandbox start --watch` and the database file (docs/storage.md,
 * "What a watched edit does"):
 * - a change that leaves its content as the sandbox wrote it (a `touch`, an
 *   editor saving it unchanged, a copy put back) changes nothing: compared by
 *   sha256, not mtime or inode, which all of those change;
 * - a hand edit is loaded with every write made since its `seq` applied on
 *   top, and the result written as a new snapshot; or refused in one line,
 *   keeping the state (the next snapshot then overwrites the file);
 * - the journal is folded into the file 200 ms after the last write, and under
 *   steady writes at most 2 s after the first write the file lacks, so the file
 *   a person opens holds every write older than that bound.
 */
import { basename } from 'node:path';
import type { Sandbox } from './sandbox.ts';

export const COMPACT_AFTER_IDLE_MS = 200;
export const COMPACT_WITHIN_MS = 2_000;

type Compactable = Sandbox['store'] & { compact?: () => Promise<void>; readonly seq?: number };

/**
 * Loads hand edits of the database file, one at a time. Under load chokidar can
 * report one edit twice; an edit dealt with once is known by its hash
 * (noteEditHandled), so the second report finds nothing new.
 */
export function databaseEditLoader(sandbox: Sandbox, log: (line: string) => void): () => Promise<void> {
  const store = sandbox.store as Compactable;
  let running: Promise<void> = Promise.resolve();
  const refuse = (name: string, hash: string, problem: string) => {
    store.noteEditHandled(hash);
    log(`watch: ${name} not loaded, keeping the last good state: ${oneLine(problem)}`);
    void store.compact?.().catch(() => undefined); // the file holds everything again
  };
  const load = async () => {
    const name = basename(store.path!);
    const edit = await store.readFileEdit();
    if (edit.kind === 'own') return;
    if (edit.kind === 'unchanged') return log(`watch: ${name} is unchanged (touched or saved as it was); nothing to load`);
    if (edit.kind === 'invalid') return refuse(name, edit.hash, edit.problem);
    store.noteEditHandled(edit.hash);
    const since = (store.seq ?? edit.snapshot.seq) - edit.snapshot.seq;
    try {
      // every row checked first, as an import's (src/control/state-import.ts); then store.replaceAll reads the
      // writes since the edit's seq and replaces the state with both in one tick
      await sandbox.context.importState(edit.snapshot.collections, { writesAfter: edit.snapshot.seq });
    } catch (err) {
      return refuse(name, edit.hash, (err as Error).message);
    }
    log(`watch: ${name} was edited; loaded, with the ${since} write(s) made since its seq ${edit.snapshot.seq} applied on top`);
  };
  return () => (running = running.then(load, load));
}

/**
 * Compacts 200 ms after the last write, and at most 2 s after the first one not yet folded.
 * `withinMs` replaces the 2 s for a test (WatchOptions.compactWithinMs); the product keeps the default.
 */
export function compactionScheduler(compact: () => Promise<void>, withinMs = COMPACT_WITHIN_MS): { wrote: () => void; stop: () => void } {
  let idle: NodeJS.Timeout | undefined;
  let due: NodeJS.Timeout | undefined;
  const stop = () => {
    clearTimeout(idle);
    clearTimeout(due);
    idle = due = undefined;
  };
  const run = () => {
    stop();
    void compact().catch(() => undefined); // a failed write is reported to the writers it fails
  };
  return {
    wrote: () => {
      clearTimeout(idle);
      idle = setTimeout(run, COMPACT_AFTER_IDLE_MS);
      due ??= setTimeout(run, withinMs);
    },
    stop,
  };
}

export const oneLine = (text: string) => text.split('\n')[0]!;
