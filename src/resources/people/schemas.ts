import { z } from 'zod';

/**
 * People (API description, "Person"): `id`, `firstName`, `lastName` and
 * `middleName` are documented; the other fields are "not shown" and marked
 * inferred.
 */
const inferred = { 'x-sandbox-inferred': true } as const;

export const PersonSchema = z
  .object({
    id: z.string().describe('shape ppl_<uuid>'),
    firstName: z.string().min(1),
    middleName: z.string().min(1).nullable(),
    lastName: z.string().min(1),
    email: z.email().meta(inferred),
    phone: z
      .string()
      .regex(/^\+[1-9]\d{6,14}$/, 'Expected an E.164 phone number (+ and 7-15 digits)')
      .nullable()
      .describe('null when unknown (people created without a phone)')
      .meta(inferred),
    dateOfBirth: z.iso.date().nullable().meta(inferred),
    nationality: z
      .string()
      .regex(/^[A-Z]{2}$/, 'Expected an ISO 3166-1 alpha-2 country code')
      .nullable()
      .meta(inferred),
    createdAt: z.iso.datetime().meta(inferred),
    updatedAt: z.iso.datetime().meta(inferred),
  })
  .meta({ id: 'Person' });
export type Person = z.infer<typeof PersonSchema>;
