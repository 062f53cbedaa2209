/**
 * Workspaces on demand (docs/control-plane.md, "Workspaces on demand"): one
 * isolated workspace per parallel test worker, created from a fixture
 * workspace in a few rows (copy-on-write), with its own keys, data, rate
 * buckets, clock, snapshots and reset. A created workspace's keys are made in
 * created-keys.ts; what a global reset keeps of created workspaces is gathered
 * in created-rows.ts.
 */
import type { Clock } from '../core/clock.ts';
import { badRequest, conflict, notFound } from '../core/errors.ts';
import { workspaceNotFound } from '../core/workspace-not-found.ts';
import { defaultWorkspaceOrRule } from '../core/default-workspace.ts';
import {
  basePartition,
  deleteRowOp,
  GLOBAL_PARTITION,
  maskId,
  newMask,
  OVERLAYS,
  parseMask,
  putRowOp,
  type Collection,
  type CollectionRegistry,
  type Collections,
  type Op,
  type OverlayRecord,
  type OverlayStore,
  type Row,
  type StoredRow,
} from '../storage/index.ts';
import type { RateLimiter } from '../core/rate-limit.ts';
import { CLOCKS } from '../core/saved-clock.ts';
import { API_KEYS, WORKSPACES, type RateLimitMode, type WorkspaceMode, type WorkspaceRecord } from '../core/tenancy.ts';
import { keysOfCreated, type CreatedKey } from './created-keys.ts';
import { createdRows } from './created-rows.ts';
import { asciiJson, SnapshotShelf } from './snapshot-shelf.ts';
import { BASES, freshSecrets, parsedFixtures, templateBase } from './templates.ts';

export type { CreatedKey } from './created-keys.ts';
/** declared beside the templates it stores (templates.ts); control/state-import.ts imports it from here */
export { BASES } from './templates.ts';

export interface CreateWorkspaceInput {
  /** a fixture workspace's id or name; default: the sandbox-mode fixture workspace */
  template?: string | undefined;
  mode?: WorkspaceMode | undefined;
  name?: string | undefined;
  /** `report`: counted, never refused (a test worker); default: the sandbox's enforceRateLimits (enforce) */
  rateLimits?: RateLimitMode | undefined;
}

export interface CreatedWorkspace {
  id: string;
  name: string;
  mode: WorkspaceMode;
  rateLimits: RateLimitMode;
  templateId: string;
  created: true;
  keys: CreatedKey[];
}

export interface WorkspaceManagerDeps {
  store: OverlayStore;
  /** the sandbox's collections (a workspace's own rows are looked for in each) */
  collections: CollectionRegistry;
  /** the organizations area's keys: their rate buckets go with the workspace */
  orgKeys: Collection<StoredRow>;
  clock: Clock;
  rateLimiter: RateLimiter;
  /** a created workspace's rate limits when its creator does not choose (the sandbox's enforceRateLimits) */
  defaultRateLimits: RateLimitMode;
  /** the fixture-generated state as JSON (cached by the sandbox) */
  fixtureJson: () => Promise<string>;
  fixtureWorkspaces: () => readonly { id: string; name: string; mode: WorkspaceMode }[];
  /** the sandbox's defaultWorkspace option: the template of a workspace created without one */
  defaultWorkspace?: string | undefined;
  /** lets background services pick up what the workspace holds now */
  afterReplaced: (workspaceId: string) => Promise<void>;
  /** forgets what other parts keep per workspace (suspension) */
  afterDeleted: (workspaceId: string) => void;
  /** created workspaces at most (the sandbox option maxWorkspaces) */
  maxWorkspaces: number;
  /** named snapshots per workspace (and of the whole state), and their JSON text all together (maxSnapshots, maxSnapshotBytes) */
  maxSnapshots: number;
  maxSnapshotBytes: number;
}

export class WorkspaceManager {
  /**
   * every named snapshot, a workspace's (its own rows as JSON) and the whole state's
   * (control/snapshots.ts), for the life of the process, within the bounds (snapshot-shelf.ts)
   */
  readonly snapshots: SnapshotShelf;
  private readonly collectionNames: Set<string>;

  constructor(private readonly deps: WorkspaceManagerDeps) {
    this.collectionNames = new Set(deps.collections.names);
    this.snapshots = new SnapshotShelf({ maxSnapshots: deps.maxSnapshots, maxSnapshotBytes: deps.maxSnapshotBytes });
    deps.store.onChange((change) => {
      if (change.kind === 'ops') for (const op of change.ops) this.collectionNames.add(op.collection);
    });
  }

  isCreated(id: string): boolean {
    return this.deps.store.overlay(id) !== undefined;
  }

  overlay(id: string): OverlayRecord | undefined {
    return this.deps.store.overlay(id);
  }

  async create(input: CreateWorkspaceInput): Promise<CreatedWorkspace> {
    const { store, clock } = this.deps;
    const template = this.template(input.template);
    const templateRecord = WORKSPACES.in(store).get(GLOBAL_PARTITION, template.id);
    if (!templateRecord) throw notFound(`Template workspace ${template.id}`);
    const base = templateBase(await this.deps.fixtureJson(), template.id, (name) => this.deps.collections.get(name)?.copied ?? true);
    // checked after the last await: the check and the commit below happen in one tick, so
    // concurrent creates cannot both take the last place
    this.requireRoom();
    const mask = newMask();
    const id = maskId(template.id, parseMask(mask));
    const secrets = freshSecrets(base, parseMask(mask));
    const mode = input.mode ?? templateRecord.mode;
    const rateLimits = input.rateLimits ?? this.deps.defaultRateLimits;
    const now = clock.isoIn(null);
    const ops: Op[] = [];
    const put = (collection: string, workspaceId: string, row: Row) => ops.push(putRowOp(collection, workspaceId, row));
    if (!store.inner.get(BASES.name, GLOBAL_PARTITION, base.baseId)) {
      for (const [collection, rows] of base.rows) for (const row of rows) put(collection, basePartition(base.baseId), row);
      put(BASES.name, GLOBAL_PARTITION, { id: base.baseId, templateId: template.id, createdAt: now });
    }
    const overlay: OverlayRecord = { id, baseId: base.baseId, mask, templateId: template.id, createdAt: now, secrets };
    ops.push(OVERLAYS.putOp(GLOBAL_PARTITION, overlay));
    const name = input.name ?? `${templateRecord.name} (worker ${id.slice(-6)})`;
    const record: WorkspaceRecord = { ...templateRecord, id, name, mode, rateLimits, createdAt: now };
    ops.push(WORKSPACES.putOp(GLOBAL_PARTITION, record));
    const keys = keysOfCreated(id, mode, now);
    for (const { record: key } of keys) ops.push(API_KEYS.putOp(GLOBAL_PARTITION, key));
    await store.commit(ops);
    return { id, name, mode, rateLimits, templateId: template.id, created: true, keys: keys.map((k) => k.view) };
  }

  /** Removes a created workspace and everything in it: data, keys, outbox, timers, buckets, snapshots. */
  async delete(id: string): Promise<{ id: string; deleted: true }> {
    const { store } = this.deps;
    this.requireCreated(id, 'deleted');
    const ops: Op[] = this.ownRows(id).map(([collection, row]) => deleteRowOp(collection, id, row.id));
    for (const key of API_KEYS.in(store).list(GLOBAL_PARTITION)) {
      if (key.workspaceId === id) ops.push(API_KEYS.deleteOp(GLOBAL_PARTITION, key.id));
    }
    ops.push(WORKSPACES.deleteOp(GLOBAL_PARTITION, id));
    ops.push(OVERLAYS.deleteOp(GLOBAL_PARTITION, id));
    if (CLOCKS.in(store).has(GLOBAL_PARTITION, id)) ops.push(CLOCKS.deleteOp(GLOBAL_PARTITION, id)); // its own advance
    const buckets = this.bucketKeys(id);
    await store.inner.commit(ops);
    this.deps.clock.forget(id);
    this.deps.rateLimiter.forget(buckets);
    this.snapshots.dropScope(id);
    this.deps.afterDeleted(id);
    return { id, deleted: true };
  }

  /** Back to the template: a created workspace drops what it wrote; a fixture workspace gets its fixture rows back. */
  async reset(id: string): Promise<void> {
    const rows: [string, Row][] = [];
    if (!this.isCreated(id)) {
      this.requireWorkspace(id);
      for (const [collection, partitions] of Object.entries(parsedFixtures(await this.deps.fixtureJson()))) {
        for (const row of Object.values(partitions[id] ?? {})) rows.push([collection, row]);
      }
    }
    await this.replaceOwnRows(id, rows);
  }

  snapshot(id: string, name: string): { name: string; createdAt: string; bytes: number } {
    this.requireWorkspace(id);
    // before the rows are copied out: a full shelf costs nothing
    this.snapshots.checkRoom(id, name);
    const { json } = asciiJson(JSON.stringify(this.ownRows(id)));
    const createdAt = this.deps.clock.isoIn(id);
    this.snapshots.put(id, name, { json, createdAt });
    return { name, createdAt, bytes: json.length };
  }

  listSnapshots(id: string): { name: string; createdAt: string; bytes: number }[] {
    this.requireWorkspace(id);
    return this.snapshots.list(id);
  }

  async restore(id: string, name: string): Promise<void> {
    this.requireWorkspace(id);
    const snapshot = this.snapshots.get(id, name);
    if (!snapshot) throw notFound(`Snapshot ${name} of workspace ${id}`);
    await this.replaceOwnRows(id, JSON.parse(snapshot.json.toString('latin1')) as [string, Row][]);
  }

  deleteSnapshot(id: string, name: string): void {
    this.requireWorkspace(id);
    if (!this.snapshots.delete(id, name)) throw notFound(`Snapshot ${name} of workspace ${id}`);
  }

  /**
   * What a global reset keeps of the created workspaces (created-rows.ts): the rows to
   * add to the fixtures' database.
   */
  createdRows(): Collections {
    return createdRows(this.deps.store.inner, this.collectionNames);
  }

  // ---------------------------------------------------------------- internals

  private template(given: string | undefined): { id: string; name: string } {
    const fixtures = this.deps.fixtureWorkspaces();
    // without one, the default workspace when it is a fixture one, else the same rule's (src/core/default-workspace.ts)
    const found = given === undefined ? defaultWorkspaceOrRule(fixtures, this.deps.defaultWorkspace) : fixtures.find((w) => w.id === given || w.name === given);
    if (!found) {
      throw badRequest(
        'CONTROL_INVALID',
        `Unknown template ${JSON.stringify(given ?? null)}: use the id or name of a fixture workspace (${fixtures.map((w) => w.name).join(', ')})`,
      );
    }
    return found;
  }

  /**
   * The cap on created workspaces (`maxWorkspaces`, docs/configuration.md): each costs a few rows and what it
   * keeps, so a runaway loop of creates is stopped with a line that says what to do. A 409:
   * waiting does not free a place (a 429 would say it does); deleting one or raising the cap does.
   */
  private requireRoom(): void {
    const created = OVERLAYS.in(this.deps.store.inner).list(GLOBAL_PARTITION).length;
    const max = this.deps.maxWorkspaces;
    if (created < max) return;
    throw conflict(
      'CONTROL_CONFLICT',
      `This sandbox has ${created} created workspaces, its limit: delete some (DELETE /__sandbox/workspaces/:id, or \`sandbox workspace delete <id>\`) or raise the limit (\`sandbox start --max-workspaces <n>\`, or the maxWorkspaces option)`,
    );
  }

  private requireWorkspace(id: string): void {
    if (!WORKSPACES.in(this.deps.store).has(GLOBAL_PARTITION, id)) throw workspaceNotFound(this.deps.store, id);
  }

  private requireCreated(id: string, verb: string): void {
    this.requireWorkspace(id);
    if (!this.isCreated(id)) throw conflict('CONTROL_CONFLICT', `Workspace ${id} comes from the fixtures and cannot be ${verb}; reset it instead`);
  }

  /** What the workspace holds itself (for a created one: its writes and tombstones), as [collection, row]. */
  private ownRows(id: string): [string, Row][] {
    const out: [string, Row][] = [];
    for (const collection of this.collectionNames) for (const row of this.deps.store.inner.list(collection, id)) out.push([collection, row]);
    return out;
  }

  /** One commit: every own row goes, the given rows come back in their order (so lists keep their order). */
  private async replaceOwnRows(id: string, rows: readonly [string, Row][]): Promise<void> {
    const ops: Op[] = this.ownRows(id).map(([collection, row]) => deleteRowOp(collection, id, row.id));
    for (const [collection, row] of rows) ops.push(putRowOp(collection, id, row));
    const buckets = this.bucketKeys(id);
    await this.deps.store.inner.commit(ops);
    this.deps.rateLimiter.forget(buckets);
    await this.deps.afterReplaced(id);
  }

  private bucketKeys(id: string): string[] {
    const keys = [`workspace:${id}`];
    for (const key of this.deps.orgKeys.in(this.deps.store).list(id)) keys.push(`key:${key.id}`);
    return keys;
  }
}
