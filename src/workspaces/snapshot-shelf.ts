import { conflict } from '../core/errors.ts';
import type { CollectionSpan } from '../storage/types.ts';

/**
 * Every named snapshot the sandbox keeps in memory (issue 34, item 2): the
 * whole state's (`POST /__sandbox/snapshots`) and each workspace's
 * (`POST /__sandbox/workspaces/:id/snapshots`). Before the bound, 400 saves
 * of the whole state took RSS from 76 MB to 1,688 MB.
 *
 * Two bounds: snapshots per scope (each workspace, and the whole state), and
 * the JSON text of all of them together. A snapshot is kept as that text, so
 * its length is known without measuring anything. Past either, a 409 (waiting
 * frees nothing: deleting a snapshot or raising the option does) whose line
 * says both ways out (it is also the X-Sandbox-Reason, code CONTROL_CONFLICT). Saving again under a name already kept replaces it, and
 * counts as the difference.
 */
export interface KeptSnapshot {
  text: string;
  /** each collection's place in `text` (whole-state snapshots: a restore hands it to the store deferred) */
  spans?: CollectionSpan[];
  createdAt: string;
}

export interface ShelfLimits {
  /** snapshots per scope (maxSnapshots) */
  maxSnapshots: number;
  /** characters of JSON text of every snapshot together (maxSnapshotBytes) */
  maxSnapshotBytes: number;
}

/** the whole state's scope; a workspace's is its id */
export const WHOLE_STATE = null;
type Scope = string | typeof WHOLE_STATE;

export class SnapshotShelf {
  readonly #byScope = new Map<Scope, Map<string, KeptSnapshot>>();
  #bytes = 0;

  constructor(private readonly limits: ShelfLimits) {}

  /** characters of JSON text kept, all snapshots together */
  get bytes(): number {
    return this.#bytes;
  }

  /** Refuses before any work when the scope is full (and `name` is new there); `put` checks the bytes. */
  checkRoom(scope: Scope, name: string): void {
    const kept = this.#byScope.get(scope);
    const count = kept?.size ?? 0;
    if (count < this.limits.maxSnapshots || kept?.has(name)) return;
    throw conflict('CONTROL_CONFLICT', `${scopeName(scope)} has ${count} snapshots, its limit: ${freeOne(scope)}, or raise the limit (\`sandbox start --max-snapshots <n>\`, or the maxSnapshots option)`);
  }

  put(scope: Scope, name: string, snapshot: KeptSnapshot): void {
    this.checkRoom(scope, name);
    const replaced = this.#byScope.get(scope)?.get(name);
    const after = this.#bytes - (replaced?.text.length ?? 0) + snapshot.text.length;
    if (after > this.limits.maxSnapshotBytes) {
      const mib = (n: number) => (n < 1024 * 1024 ? `${Math.ceil(n / 1024)} KiB` : `${Math.round((n / 1024 / 1024) * 10) / 10} MiB`);
      throw conflict(
        'CONTROL_CONFLICT',
        `Snapshots already hold ${mib(this.#bytes)} and this one is ${mib(snapshot.text.length)}, past the limit of ${mib(this.limits.maxSnapshotBytes)} for all snapshots: ${freeOne(scope)}, or raise the limit (\`sandbox start --max-snapshot-mib <n>\`, or the maxSnapshotBytes option)`,
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
    return [...(this.#byScope.get(scope) ?? [])].map(([name, s]) => ({ name, createdAt: s.createdAt, bytes: s.text.length }));
  }

  /** false when there was none of that name */
  delete(scope: Scope, name: string): boolean {
    const kept = this.#byScope.get(scope);
    const snapshot = kept?.get(name);
    if (!kept || !snapshot) return false;
    kept.delete(name);
    this.#bytes -= snapshot.text.length;
    if (kept.size === 0) this.#byScope.delete(scope);
    return true;
  }

  /** a deleted workspace's snapshots go with it */
  dropScope(scope: Scope): void {
    for (const snapshot of this.#byScope.get(scope)?.values() ?? []) this.#bytes -= snapshot.text.length;
    this.#byScope.delete(scope);
  }
}

const scopeName = (scope: Scope) => (scope === WHOLE_STATE ? 'The whole state' : `Workspace ${scope}`);

/** how to free a place: the delete route of that scope's snapshots */
const freeOne = (scope: Scope) =>
  scope === WHOLE_STATE
    ? 'delete one you no longer need (DELETE /__sandbox/snapshots/:name; GET /__sandbox/snapshots lists them)'
    : `delete one you no longer need (DELETE /__sandbox/workspaces/${scope}/snapshots/:name; GET /__sandbox/workspaces/${scope}/snapshots lists them)`;
