import { z } from 'zod';
import { PersonSchema } from './schemas.ts';

/**
 * Creating a person (control plane: POST /__sandbox/workspaces/:id/people).
 * The public API names no endpoint that creates people, so they come from
 * fixtures and from here (docs/bookings.md, "People").
 */
export const CreatePersonBodySchema = z.object({
  firstName: z.string().trim().min(1).max(100),
  middleName: z.string().trim().min(1).max(100).nullable().optional(),
  lastName: z.string().trim().min(1).max(100),
  email: z.email().max(254),
  phone: PersonSchema.shape.phone.nullable().optional(),
  dateOfBirth: z.iso.date().nullable().optional(),
  nationality: PersonSchema.shape.nationality.optional(),
});
export type CreatePersonBody = z.infer<typeof CreatePersonBodySchema>;

export const PersonIdParamsSchema = z.object({ id: z.string().describe('person id, ppl_<uuid>') });
