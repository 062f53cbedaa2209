import { z } from 'zod';
import { defineCollection, type Collection } from '../storage/index.ts';
import { IDEMPOTENCY } from './idempotency.ts';
import { CLOCKS } from './saved-clock.ts';
import { API_KEYS, WORKSPACES } from './tenancy.ts';

/**
 * The collections no API area owns: workspaces and their keys, idempotency
 * records, durable jobs and the saved clock (sandbox bookkeeping). Every other collection is
 * declared by its area (ResourceModule.collections, src/resources/index.ts).
 */

/** A durable job on the sandbox clock; `kind` names the service that runs it (gallery removals, ...). */
export const JobSchema = z.looseObject({ id: z.string(), kind: z.string() });
export type Job = z.output<typeof JobSchema>;
export const JOBS = defineCollection({ name: 'jobs', schema: JobSchema, idPrefix: null, internal: true });

/** Declared before the areas' collections (the order of an export and of the database file). */
export const CORE_COLLECTIONS_FIRST: readonly Collection[] = [WORKSPACES, API_KEYS];
/** Declared after the areas' collections. */
export const CORE_COLLECTIONS_LAST: readonly Collection[] = [IDEMPOTENCY, JOBS, CLOCKS];
