import { z } from 'zod';
import type { BackgroundService } from '../../src/context.ts';
import { notFound } from '../../src/core/errors.ts';
import { newId, parseId } from '../../src/core/ids.ts';
import { errorResponses } from '../../src/http/error-schemas.ts';
import type { ResourceModule } from '../../src/resources/types.ts';
import { defineCollection } from '../../src/storage/collection.ts';

/**
 * A toy API area, written as a new area would be (docs/architecture.md,
 * "Adding an area"): one folder that declares its collection (name, row
 * schema, id prefix), its /v1 routes, its control-plane part and a background
 * service. test/toy-area.test.ts adds it to the list with one line.
 */
export const NoteSchema = z.object({
  id: z.string().describe('note_<uuid>'),
  text: z.string().min(1).max(200),
  createdAt: z.iso.datetime(),
});
export type Note = z.output<typeof NoteSchema>;

export const NOTES = defineCollection({ name: 'notes', schema: NoteSchema, idPrefix: 'note' });

/** How many times the toy service was started and stopped (a test reads it). */
export const noteServiceRuns = { started: 0, stopped: 0 };

const noteService: BackgroundService = {
  name: 'toy-notes',
  start() {
    noteServiceRuns.started++;
    return { stop: () => void noteServiceRuns.stopped++ };
  },
};

export const toyResource: ResourceModule = {
  name: 'toy-notes',
  collections: [NOTES],
  routes(app, ctx) {
    const notes = NOTES.in(ctx.store);
    app.post(
      '/notes',
      {
        schema: { body: z.object({ text: z.string().min(1).max(200) }), response: { 201: NoteSchema, ...errorResponses } },
        config: { scope: 'notes:write', inferred: true, summary: 'Create a note (toy area)' },
      },
      async (request, reply) => {
        const note: Note = { id: newId(NOTES), text: request.body.text, createdAt: ctx.clock.iso() };
        await notes.put(request.principal.workspace.id, note);
        return reply.code(201).send(note);
      },
    );
    app.get(
      '/notes/:id',
      {
        schema: { params: z.object({ id: z.string() }), response: { 200: NoteSchema, ...errorResponses } },
        config: { scope: 'notes:read', inferred: true, summary: 'Get a note (toy area)' },
      },
      async (request) => {
        const note = notes.get(request.principal.workspace.id, parseId(NOTES, 'id', request.params.id));
        if (!note) throw notFound('Note');
        return note;
      },
    );
  },
  // a real area loads this part with `() => import('./control.ts')`: the control plane is built on first use
  control: async () => (app, ctx) => {
    app.get(
      '/notes/count',
      {
        schema: { response: { 200: z.object({ data: z.object({ notes: z.number().int() }) }) } },
        config: { summary: 'Notes in every workspace (toy area)' },
      },
      async () => {
        const notes = NOTES.in(ctx.store);
        return { data: { notes: notes.partitions().reduce((sum, ws) => sum + notes.list(ws).length, 0) } };
      },
    );
  },
  services: [noteService],
};
