import { badRequest, notFound, validationError } from '../core/errors.ts';
import { MAX_STATE_DEPTH } from '../core/json-depth.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { deferredFromJson } from '../storage/deferred.ts';
import { SCHEMA_VERSION, type Collections } from '../storage/types.ts';
import { serve, serveAll } from './contract.ts';
import { StateImportError } from './state-import.ts';
import { SNAPSHOT_ROUTES } from './contracts/snapshots.ts';
import { WHOLE_STATE } from '../workspaces/snapshot-shelf.ts';

/**
 * Named snapshots, kept in memory for the life of the process (fast restore
 * between test cases), and export/import of the whole state as one JSON file.
 */
/** 256 MiB: a whole database travels in one import body. */
const IMPORT_BODY_LIMIT = 256 * 1024 * 1024;

export function registerSnapshotRoutes(app: ZodApp, ctx: SandboxContext): void {
  // each kept as JSON with its collections' spans: a restore hands it to the store deferred (issue 11);
  // on the shelf the workspaces' snapshots are on, within the same bounds (workspaces/snapshot-shelf.ts)
  const shelf = ctx.workspaces.snapshots;
  const { importState, ...routes } = SNAPSHOT_ROUTES;

  serveAll(app, routes, {
    saveSnapshot: async (request) => {
      shelf.checkRoom(WHOLE_STATE, request.body.name);
      const { text, spans } = ctx.store.exportJson();
      const createdAt = ctx.clock.iso();
      shelf.put(WHOLE_STATE, request.body.name, { text, spans, createdAt });
      return { name: request.body.name, createdAt, bytes: text.length };
    },

    snapshots: async () => shelf.list(WHOLE_STATE),

    restoreSnapshot: async (request) => {
      const snapshot = shelf.get(WHOLE_STATE, request.params.name);
      if (!snapshot) throw notFound(`Snapshot ${request.params.name}`);
      const started = performance.now();
      await ctx.replaceState(deferredFromJson(snapshot.text, snapshot.spans ?? []));
      return { name: request.params.name, restored: true as const, ms: Math.round((performance.now() - started) * 100) / 100 };
    },

    deleteSnapshot: async (request) => {
      if (!shelf.delete(WHOLE_STATE, request.params.name)) throw notFound(`Snapshot ${request.params.name}`);
      return { name: request.params.name, deleted: true as const };
    },

    // The whole state in the database file's own format, so an export is also a valid --data file.
    exportState: async () => ctx.store.serialize(),
  });

  serve(app, importState, async (request) => {
    if (request.body.schemaVersion > SCHEMA_VERSION) throw badRequest('CONTROL_INVALID', `This state has schemaVersion ${request.body.schemaVersion}; this sandbox reads up to ${SCHEMA_VERSION}`);
    try {
      await ctx.importState(request.body.collections as Collections);
    } catch (err) {
      // the documented validation body, its one message naming the collection, the row and the field
      if (err instanceof StateImportError) throw validationError([err.message]);
      throw err;
    }
    return { imported: true as const, collections: Object.keys(request.body.collections).length };
  }, { bodyLimit: IMPORT_BODY_LIMIT, maxJsonDepth: MAX_STATE_DEPTH });
}
