import { conflict } from '../core/errors.ts';
import type { CollectionSpan } from '../storage/index.ts';

/**
 * Every named snapshot the sandbox keeps in memory, within its bounds: the
 * whole state's (`POST /__sandbox/snapshots`) and each workspace's
 * (`POST /__sandbox/workspaces/:id/snapshots`). Without the bounds, 400 saves
 * of the whole state took RSS from 76 MB to 1,688 MB.
 *
 * Two bounds: snapshots per scope (each workspace, and the whole state), and
 * the bytes of JSON of all of them together. A snapshot is kept as those
 * bytes, so what it weighs is known without measuring anything. Past either, a 409 (waiting
 * frees nothing: deleting a snapshot or raising the option does) whose line
 * says both ways out (it is also the X-Sandbox-Reason, code CONTROL_CONFLICT). Saving again under a name already kept replaces it, and
 * counts as the difference.
 */
export interface KeptSnapshot {
  /**
   * the JSON as ASCII bytes (asciiJson): a string of it was two bytes a character as soon as
   * one name had an accent, so 253 MiB of text took 620 MiB; bytes are what they weigh
   */
  json: Buffer;
  /** each collection's place in `json` (whole-state snapshots: a restore hands it to the store deferred) */
  spans?: CollectionSpan[];
  createdAt: string;
}

const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_ALL = /[^\x00-\x7f]/g;
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * JSON text as ASCII bytes: every character past ASCII (only ever inside a string) written as
 * its \uXXXX escape, which parses to the same value; the spans moved to match.
 */
export function asciiJson(text: string, spans?: readonly CollectionSpan[]): { json: Buffer; spans?: CollectionSpan[] } {
  if (!NON_ASCII.test(text)) return { json: Buffer.from(text, 'latin1'), ...(spans ? { spans: [...spans] } : {}) };
  if (!spans) return { json: Buffer.from(text.replace(NON_ASCII_ALL, escapeChar), 'latin1') };
  let out = '';
  let from = 0;
  const moved: CollectionSpan[] = [];
  for (const [name, start, end] of spans) {
    out += text.slice(from, start).replace(NON_ASCII_ALL, escapeChar);
    const newStart = out.length;
    out += text.slice(start, end).replace(NON_ASCII_ALL, escapeChar);
    moved.push([name, newStart, out.length]);
    from = end;
  }
  out += text.slice(from).replace(NON_ASCII_ALL, escapeChar);
  return { json: Buffer.from(out, 'latin1'), spans: moved };
}

export interface ShelfLimits {
  /** snapshots per scope (maxSnapshots) */
  maxSnapshots: number;
  /** bytes of JSON of every snapshot together (maxSnapshotBytes) */
  maxSnapshotBytes: number;
}

/** the whole state's scope; a workspace's is its id */
export const WHOLE_STATE = null;
type Scope = string | typeof WHOLE_STATE;

export class SnapshotShelf {
  readonly #byScope = new Map<Scope, Map<string, KeptSnapshot>>();
  #bytes = 0;

  constructor(private readonly limits: ShelfLimits) {}

  /** bytes of JSON kept, all snapshots together */
  get bytes(): number {
    return this.#bytes;
  }

  /** Refuses before any work when the scope is full (and `name` is new there); `put` checks the bytes. */
  checkRoom(scope: Scope, name: string): void {
    const kept = this.#byScope.get(scope);
    const count = kept?.size ?? 0;
    if (count < this.limits.maxSnapshots || kept?.has(name)) return;
    throw conflict(
      'CONTROL_CONFLICT',
      `${scopeName(scope)} has ${count} snapshots, its limit: ${freeOne(scope)}, or raise the limit (\`sandbox start --max-snapshots <n>\`, or the maxSnapshots option)`,
    );
  }

  put(scope: Scope, name: string, snapshot: KeptSnapshot): void {
    this.checkRoom(scope, name);
    const replaced = this.#byScope.get(scope)?.get(name);
    const after = this.#bytes - (replaced?.json.length ?? 0) + snapshot.json.length;
    if (after > this.limits.maxSnapshotBytes) {
      const mib = (n: number) => (n < 1024 * 1024 ? `${Math.ceil(n / 1024)} KiB` : `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`);
      throw conflict(
        'CONTROL_CONFLICT',
        `Snapshots already hold ${mib(this.#bytes)} and this one is ${mib(snapshot.json.length)}, past the limit of ${mib(this.limits.maxSnapshotBytes)} for all snapshots: ${freeOne(scope)}, or raise the limit (\`sandbox start --max-snapshot-mib <n>\`, or the maxSnapshotBytes option)`,
      );
    }
    let kept = this.#byScope.get(scope);
    if (!kept) this.#byScope.set(scope, (kept = new Map()));
    // delete first: a replaced name goes to the end of the listing, as a new save
    kept.delete(name);
    kept.set(name, snapshot);
    this.#bytes = after;
  }

  get(scope: Scope, name: string): KeptSnapshot | undefined {
    return this.#byScope.get(scope)?.get(name);
  }

  list(scope: Scope): { name: string; createdAt: string; bytes: number }[] {
    return [...(this.#byScope.get(scope) ?? [])].map(([name, s]) => ({ name, createdAt: s.createdAt, bytes: s.json.length }));
  }

  /** false when there was none of that name */
  delete(scope: Scope, name: string): boolean {
    const kept = this.#byScope.get(scope);
    const snapshot = kept?.get(name);
    if (!kept || !snapshot) return false;
    kept.delete(name);
    this.#bytes -= snapshot.json.length;
    if (kept.size === 0) this.#byScope.delete(scope);
    return true;
  }

  /** a deleted workspace's snapshots go with it */
  dropScope(scope: Scope): void {
    for (const snapshot of this.#byScope.get(scope)?.values() ?? []) this.#bytes -= snapshot.json.length;
    this.#byScope.delete(scope);
  }
}

const scopeName = (scope: Scope) => (scope === WHOLE_STATE ? 'The whole state' : `Workspace ${scope}`);

/** how to free a place: the delete route of that scope's snapshots */
const freeOne = (scope: Scope) =>
  scope === WHOLE_STATE
    ? 'delete one you no longer need (DELETE /__sandbox/snapshots/:name; GET /__sandbox/snapshots lists them)'
    : `delete one you no longer need (DELETE /__sandbox/workspaces/${scope}/snapshots/:name; GET /__sandbox/workspaces/${scope}/snapshots lists them)`;
