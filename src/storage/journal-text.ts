/**
 * The journal's text: one line per acknowledged commit, or one line for all the
 * commits of a request (`{"seq":7,"from":5,"ops":[...]}` covers seqs 5 to 7:
 * journal-queue.ts, docs/storage.md "One request, one commit"). Pure functions: no I/O here.
 */
import { errorText, isPlainObject, opProblem } from './codec.ts';
import { StoreError, type Op } from './types.ts';

/**
 * The journal does not continue the snapshot: the writes between are in neither
 * file (the database file was replaced by an older copy). open-store.ts says how
 * to recover, or sets the journal aside with `recover` (docs/storage.md).
 */
export class JournalMismatchError extends StoreError {
  constructor(
    message: string,
    readonly journalSeq: number,
    readonly snapshotSeq: number,
  ) {
    super(message);
  }
}

export interface JournalEntry {
  seq: number;
  ops: Op[];
}

export interface ParsedJournal {
  /** entries with seq > snapshot seq, in order, consecutive */
  entries: JournalEntry[];
  /** a final line that was cut short (never acknowledged) was dropped */
  tornTail: boolean;
}

/**
 * Parses journal text. Only a final line without its newline is a torn write:
 * it was never acknowledged (a commit is acknowledged after its whole line,
 * newline included, is on disk), so it is dropped. A complete line that does
 * not parse was acknowledged once; it is corruption, wherever it stands. Entries already in the snapshot (seq <= baseSeq)
 * are skipped; the rest must continue the snapshot's seq without gaps.
 */
export function parseJournal(text: string, file: string, baseSeq: number): ParsedJournal {
  const entries: JournalEntry[] = [];
  if (text.length === 0) return { entries, tornTail: false };
  const lines = text.split('\n');
  // text ends with '\n' -> last element is '' ; otherwise it is a torn fragment
  const tornTail = lines[lines.length - 1] !== '';
  lines.pop();
  let expected = baseSeq + 1;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const fail = (problem: string) => new StoreError(`Cannot open database: journal ${file} is corrupt at line ${lineNo}: ${problem}`);
    const line = lines[i]!;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch (err) {
      throw fail(`not valid JSON (${errorText(err)})`);
    }
    if (!isPlainObject(entry) || !Number.isSafeInteger(entry.seq) || !Array.isArray(entry.ops)) {
      throw fail('not a journal entry ({"seq":n,"ops":[...]})');
    }
    const seq = entry.seq as number;
    const from = entry.from === undefined ? seq : (entry.from as number);
    if (!Number.isSafeInteger(from) || from > seq) throw fail(`"from" ${String(entry.from)} is not a seq at or before ${seq}`);
    if (seq <= baseSeq) {
      if (entries.length > 0) throw fail(`seq ${seq} goes backwards`);
      continue; // already contained in the snapshot (compaction was interrupted)
    }
    // a request's line may straddle the snapshot only if a compaction was cut between its
    // rename and the journal's truncation: its ops are whole rows, so applying them again is harmless
    if (entries.length === 0 && from > expected) {
      throw new JournalMismatchError(
        fail(`journal continues at seq ${from} but the snapshot is at seq ${baseSeq}; the journal does not belong to this snapshot`).message,
        from,
        baseSeq,
      );
    }
    if (entries.length > 0 && from !== expected) {
      throw fail(
        entries.length === 0
          ? `journal continues at seq ${from} but the snapshot is at seq ${baseSeq}; the journal does not belong to this snapshot`
          : `expected seq ${expected}, found ${from}`,
      );
    }
    for (let j = 0; j < entry.ops.length; j++) {
      const problem = opProblem(entry.ops[j]);
      if (problem) throw fail(`op ${j} ${problem}`);
    }
    entries.push({ seq, ops: entry.ops as Op[] });
    expected = seq + 1;
  }
  return { entries, tornTail };
}
