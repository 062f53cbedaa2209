import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';

/**
 * Named snapshots of the whole state, kept in memory for the process, and
 * export/import of the whole state as one JSON file (docs/control-plane.md).
 */
export const SnapshotName = z.string().regex(/^[\w.-]{1,64}$/, 'names are 1-64 letters, digits, _ . -');
const NameParams = z.object({ name: SnapshotName });
export const SnapshotSchema = z.object({ name: z.string(), createdAt: z.string(), bytes: z.number().int() }).meta({ id: 'Snapshot' });
/** one schema object for both listings, so that the OpenAPI document writes their answer once */
export const SnapshotListSchema = z.array(SnapshotSchema);
export const RestoredSchema = z.object({ name: z.string(), restored: z.literal(true), ms: z.number() });
export const SnapshotDeletedSchema = z.object({ name: z.string(), deleted: z.literal(true) });
const ImportBodySchema = z.object({
  schemaVersion: z.number().int(),
  collections: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.looseObject({ id: z.string() })))),
});

export const SNAPSHOT_ROUTES = defineRoutes({
  saveSnapshot: {
    method: 'POST',
    path: '/snapshots',
    body: NameParams,
    data: SnapshotSchema,
    statuses: [201],
    errors: [409],
    summary: 'Keep the whole state in memory under a name; 409 past the bounds on snapshots (100, 128 MiB in all by default)',
  },
  snapshots: { method: 'GET', path: '/snapshots', data: SnapshotListSchema, summary: 'The saved snapshots' },
  restoreSnapshot: { method: 'POST', path: '/snapshots/:name/restore', params: NameParams, data: RestoredSchema, summary: 'Go back to a saved snapshot' },
  deleteSnapshot: { method: 'DELETE', path: '/snapshots/:name', params: NameParams, data: SnapshotDeletedSchema, summary: 'Forget a saved snapshot' },
  // The whole state in the database file's own format, so an export is also a valid --data file.
  exportState: {
    method: 'GET',
    path: '/state',
    raw: 'json',
    data: z.object({ schemaVersion: z.number().int(), seq: z.number().int(), collections: ImportBodySchema.shape.collections }),
    summary: "The whole state in the database file's format (a valid --data file; not wrapped in data)",
  },
  importState: {
    method: 'PUT',
    path: '/state',
    body: ImportBodySchema,
    data: z.object({ imported: z.literal(true), collections: z.number().int() }),
    errors: [400],
    summary: 'Replace the whole state (up to 256 MiB)',
  },
});
