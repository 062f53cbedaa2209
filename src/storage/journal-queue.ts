/**
 * The journal lines waiting for the next flush, in commit order, with the lines
 * of open commit groups held back (commit-group.ts; docs/storage.md, "One
 * request, one commit").
 *
 * The queue is a list of units. A plain unit holds ungrouped commits, written
 * one line each as before. A grouped unit holds the commits of one or more
 * groups and is written as ONE line, so a crash keeps all of it or none of it
 * (a torn last line is dropped at load). A flush takes the prefix of units whose
 * groups are all released, so the journal stays in commit order. When a group
 * commits again after other commits have been queued behind its unit (its
 * handler awaited something in between), everything behind it joins its unit:
 * the line keeps the order in which memory saw the commits.
 */
import type { CommitGroup } from './commit-group.ts';

/** One commit: its journal line, or (a group's) its seq and ops, to be merged into the group's line. */
export type Entry = { line: string; group: null } | { seq: number; opsJson: string; group: CommitGroup };

export interface Unit {
  entries: Entry[];
  /** groups whose lines are here and who have not released them yet */
  open: Set<CommitGroup>;
  /** written as one line (it holds a group's lines) */
  grouped: boolean;
  promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function newUnit(grouped: boolean): Unit {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // a grouped commit's caller holds no promise of it (its group's close does): never unhandled
  promise.catch(() => undefined);
  return { entries: [], open: new Set(), grouped, promise, resolve, reject };
}

export class JournalQueue {
  #units: Unit[] = [];
  readonly #byGroup = new Map<CommitGroup, Unit>();

  /** Queues one commit; resolves once its unit is durable. */
  add(entry: Entry): Promise<void> {
    const unit = entry.group ? this.#unitOf(entry.group) : this.#plainTail();
    unit.entries.push(entry);
    return unit.promise;
  }

  /** The group's lines may be written; resolves once they are durable. */
  release(group: CommitGroup): Promise<void> {
    const unit = this.#byGroup.get(group);
    if (!unit) return Promise.resolve();
    this.#byGroup.delete(group);
    unit.open.delete(group);
    return unit.promise;
  }

  get empty(): boolean {
    return this.#units.length === 0;
  }

  /** whether a group holds lines here */
  get hasOpen(): boolean {
    return this.#byGroup.size > 0;
  }

  /** whether the first unit may be written */
  get hasReady(): boolean {
    return this.#units.length > 0 && this.#units[0]!.open.size === 0;
  }

  /** the last unit: durable means everything queued so far is */
  get tail(): Unit | undefined {
    return this.#units[this.#units.length - 1];
  }

  /** Takes the units that may be written now: the prefix whose groups are all released. */
  takeReady(): Unit[] {
    let n = 0;
    while (n < this.#units.length && this.#units[n]!.open.size === 0) n++;
    return this.#units.splice(0, n);
  }

  /**
   * At close, the groups still open (a request cut at the stop deadline) are
   * dropped: none of their commits is written, as if they never ran (the
   * process is ending; memory is not snapshotted, docs/storage.md). Returns
   * how many groups were dropped.
   */
  /** One open group's lines are dropped (see abandonOpen): a request cut at the stop deadline. */
  drop(group: CommitGroup): void {
    const unit = this.#byGroup.get(group);
    if (!unit) return;
    for (const entry of unit.entries) if (entry.group === group) entry.opsJson = '';
    unit.open.delete(group);
    this.#byGroup.delete(group);
  }

  abandonOpen(): number {
    const dropped = this.#byGroup.size;
    for (const [group, unit] of this.#byGroup) {
      // their seqs stay, with no ops, so the journal's seqs still follow each other
      for (const entry of unit.entries) if (entry.group === group) entry.opsJson = '';
      unit.open.delete(group);
    }
    this.#byGroup.clear();
    return dropped;
  }

  #plainTail(): Unit {
    const last = this.tail;
    if (last && !last.grouped) return last;
    const unit = newUnit(false);
    this.#units.push(unit);
    return unit;
  }

  #unitOf(group: CommitGroup): Unit {
    const unit = this.#byGroup.get(group);
    if (!unit) {
      const fresh = newUnit(true);
      fresh.open.add(group);
      this.#byGroup.set(group, fresh);
      this.#units.push(fresh);
      return fresh;
    }
    const at = this.#units.indexOf(unit);
    if (at < this.#units.length - 1) this.#absorbAfter(unit, at);
    return unit;
  }

  /** Everything queued behind `unit` joins it, in order (see the module comment). */
  #absorbAfter(unit: Unit, at: number): void {
    for (const later of this.#units.splice(at + 1)) {
      unit.entries.push(...later.entries);
      for (const group of later.open) {
        unit.open.add(group);
        this.#byGroup.set(group, unit);
      }
      unit.promise.then(later.resolve, later.reject);
    }
  }
}

/** The journal text of units taken together: a grouped unit is one line, a plain one a line per commit. */
export function journalText(units: readonly Unit[]): { text: string; commits: number } {
  let text = '';
  let commits = 0;
  for (const unit of units) {
    commits += unit.entries.length;
    if (unit.entries.length === 0) continue;
    if (!unit.grouped) {
      for (const entry of unit.entries) text += (entry as { line: string }).line;
      continue;
    }
    let first = 0;
    let last = 0;
    const ops: string[] = [];
    for (const entry of unit.entries) {
      // a plain commit queued behind a group joined its line: its own line is read back
      const { seq, opsJson } = entry.group ? entry : lineParts(entry.line);
      if (first === 0) first = seq;
      last = seq;
      if (opsJson !== '') ops.push(opsJson);
    }
    text += `{"seq":${last}${last === first ? '' : `,"from":${first}`},"ops":[${ops.join(',')}]}\n`;
  }
  return { text, commits };
}

/** seq and ops of a line the store wrote (`{"seq":N,"ops":[...]}\n`). */
function lineParts(line: string): { seq: number; opsJson: string } {
  const parsed = /^\{"seq":(\d+),"ops":\[(.*)\]\}\n$/s.exec(line);
  if (!parsed) throw new Error(`not a journal line: ${line.slice(0, 80)}`);
  return { seq: Number(parsed[1]), opsJson: parsed[2]! };
}
