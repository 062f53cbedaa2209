import { z } from 'zod';
import { badRequest, notFound } from '../core/errors.ts';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { SCHEMA_VERSION, type Collections } from '../storage/types.ts';

/**
 * Named snapshots, kept in memory for the life of the process (fast restore
 * between test cases), and export/import of the whole state as one JSON file.
 */
const NameParams = z.object({ name: z.string().regex(/^[\w.-]{1,64}$/, 'names are 1-64 letters, digits, _ . -') });
const ImportBodySchema = z.object({
  schemaVersion: z.number().int(),
  collections: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.looseObject({ id: z.string() })))),
});

/** 256 MiB: a whole database travels in one import body. */
const IMPORT_BODY_LIMIT = 256 * 1024 * 1024;

export function registerSnapshotRoutes(app: ZodApp, ctx: SandboxContext): void {
  const snapshots = new Map<string, { json: string; createdAt: string }>();

  app.post('/snapshots', { schema: { body: NameParams, response: { 201: z.object({ data: z.object({ name: z.string(), createdAt: z.string(), bytes: z.number().int() }) }) } } }, async (request, reply) => {
    const json = JSON.stringify(ctx.store.exportCollections());
    snapshots.set(request.body.name, { json, createdAt: ctx.clock.iso() });
    return reply.code(201).send({ data: { name: request.body.name, createdAt: ctx.clock.iso(), bytes: json.length } });
  });

  app.get('/snapshots', async () => ({
    data: [...snapshots].map(([name, s]) => ({ name, createdAt: s.createdAt, bytes: s.json.length })),
  }));

  app.post('/snapshots/:name/restore', { schema: { params: NameParams } }, async (request) => {
    const snapshot = snapshots.get(request.params.name);
    if (!snapshot) throw notFound(`Snapshot ${request.params.name}`);
    const started = performance.now();
    await ctx.replaceState(JSON.parse(snapshot.json) as Collections);
    return { data: { name: request.params.name, restored: true, ms: Math.round((performance.now() - started) * 100) / 100 } };
  });

  app.delete('/snapshots/:name', { schema: { params: NameParams } }, async (request) => {
    if (!snapshots.delete(request.params.name)) throw notFound(`Snapshot ${request.params.name}`);
    return { data: { name: request.params.name, deleted: true } };
  });

  // The whole state in the database file's own format, so an export is also a valid --data file.
  app.get('/state', async (_request, reply) => reply.type('application/json').send(ctx.store.serialize()));

  app.put('/state', { bodyLimit: IMPORT_BODY_LIMIT, schema: { body: ImportBodySchema } }, async (request) => {
    if (request.body.schemaVersion > SCHEMA_VERSION) throw badRequest('CONTROL_INVALID', `This state has schemaVersion ${request.body.schemaVersion}; this sandbox reads up to ${SCHEMA_VERSION}`);
    await ctx.replaceState(request.body.collections as Collections);
    return { data: { imported: true, collections: Object.keys(request.body.collections).length } };
  });
}
