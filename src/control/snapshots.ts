import { notFound } from '../core/errors.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { deferredFromJson } from '../storage/index.ts';
import { registerBodyBytesParser } from './body-bytes.ts';
import { serve, serveAll } from '../http/route-table/serve.ts';
import { SNAPSHOT_ROUTES } from './contracts/snapshots.ts';
import { asciiJson, WHOLE_STATE } from '../workspaces/snapshot-shelf.ts';

/**
 * Named snapshots, kept in memory for the life of the process (fast restore
 * between test cases), and export/import of the whole state as one JSON file.
 */
/** 256 MiB: a whole database travels in one import body. */
const IMPORT_BODY_LIMIT = 256 * 1024 * 1024;

export function registerSnapshotRoutes(app: ZodApp, ctx: SandboxContext): void {
  // each kept as JSON with its collections' spans: a restore hands it to the store deferred;
  // on the shelf the workspaces' snapshots are on, within the same bounds (workspaces/snapshot-shelf.ts)
  const shelf = ctx.workspaces.snapshots;
  const { importState, ...routes } = SNAPSHOT_ROUTES;

  serveAll(app, routes, {
    saveSnapshot: async (request) => {
      shelf.checkRoom(WHOLE_STATE, request.body.name);
      const exported = ctx.store.exportJson();
      const { json, spans } = asciiJson(exported.text, exported.spans);
      const createdAt = ctx.clock.iso();
      shelf.put(WHOLE_STATE, request.body.name, { json, spans, createdAt });
      return { name: request.body.name, createdAt, bytes: json.length };
    },

    snapshots: async () => shelf.list(WHOLE_STATE),

    restoreSnapshot: async (request) => {
      const snapshot = shelf.get(WHOLE_STATE, request.params.name);
      if (!snapshot) throw notFound(`Snapshot ${request.params.name}`);
      const started = performance.now();
      await ctx.replaceState(deferredFromJson(snapshot.json, snapshot.spans ?? []));
      return { name: request.params.name, restored: true as const, ms: Math.round((performance.now() - started) * 100) / 100 };
    },

    deleteSnapshot: async (request) => {
      if (!shelf.delete(WHOLE_STATE, request.params.name)) throw notFound(`Snapshot ${request.params.name}`);
      return { name: request.params.name, deleted: true as const };
    },

    // The whole state in the database file's own format, so an export is also a valid --data file.
    exportState: async () => ctx.store.serialize(),
  });

  // The body as bytes, read and checked a row at a time, giving way to other requests every few
  // milliseconds (state-reader.ts): in a scope of its own, for its own body parser.
  app.register(async (scope) => {
    registerBodyBytesParser(scope, IMPORT_BODY_LIMIT);
    serve(
      scope as ZodApp,
      importState,
      async (request) => {
        const { readStateBody, handedOver } = await import('./state-reader.ts');
        const { collections } = await readStateBody(Buffer.isBuffer(request.body) ? request.body : undefined, ctx.collections);
        const count = Object.keys(collections).length;
        // checked, so handed over as trusted rows; each collection's Maps are built when first read
        await ctx.replaceState(handedOver(collections));
        return { imported: true as const, collections: count };
      },
      { bodyLimit: IMPORT_BODY_LIMIT, bodyCheckedByHandler: true },
    );
  });
}
