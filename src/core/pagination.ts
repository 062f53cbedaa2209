import { z } from 'zod';
import { badRequest } from './errors.ts';

/**
 * The two list envelopes (API description, "Envelopes") and limit/offset/sort
 * parsing ("Common request rules"). Each envelope is built here and only here.
 */
export interface Page {
  limit: number;
  offset: number;
}

export const paginationQuery = (defaultLimit: number) => ({
  limit: z.coerce.number().int().min(1).max(100).default(defaultLimit).describe(`page size, default ${defaultLimit}, max 100`),
  offset: z.coerce.number().int().min(0).default(0).describe('rows to skip, default 0'),
});

/** One page of a list whose documented envelope is a bare `{data: [...]}` (no pagination object to fill). */
export const pageOf = <T>(rows: readonly T[], page: Page): T[] => rows.slice(page.offset, page.offset + page.limit);

export const paginationEnvelopeSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    pagination: z.object({
      total: z.number().int(),
      limit: z.number().int(),
      offset: z.number().int(),
      has_more: z.boolean(),
    }),
  });

export const bookingListEnvelopeSchema = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    meta: z.object({
      total: z.number().int(),
      limit: z.number().int(),
      offset: z.number().int(),
      hasMore: z.boolean(),
    }),
  });

/** Default envelope: `{data, pagination: {total, limit, offset, has_more}}`. */
export function paginate<T>(rows: readonly T[], page: Page) {
  const data = rows.slice(page.offset, page.offset + page.limit);
  return {
    data,
    pagination: {
      total: rows.length,
      limit: page.limit,
      offset: page.offset,
      has_more: page.offset + data.length < rows.length,
    },
  };
}

/** The booking envelope of one page found in an index: `total` rows match, `data` are those at `page.offset`. */
export function bookingPage<T>(data: T[], total: number, page: Page) {
  return { data, meta: { total, limit: page.limit, offset: page.offset, hasMore: page.offset + data.length < total } };
}

export interface SortSpec {
  field: string;
  descending: boolean;
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * `sort=-created_at` / `sort=createdAt`: a leading `-` means descending.
 * snake_case and camelCase spellings of a field are both accepted, because the
 * description's own example (`-created_at`) is snake_case while some resources
 * are camelCase.
 */
export function parseSort(raw: string | undefined, allowed: readonly string[], fallback: SortSpec): SortSpec {
  if (raw === undefined || raw === '') return fallback;
  const descending = raw.startsWith('-');
  const name = descending ? raw.slice(1) : raw;
  const field = allowed.find((a) => a === name || camel(a) === camel(name));
  if (!field) throw badRequest('INVALID_SORT', `Invalid sort "${raw}": sort by one of ${allowed.join(', ')} (prefix - for descending)`);
  return { field, descending };
}

export function sortRows<T>(rows: T[], spec: SortSpec, get: (row: T, field: string) => unknown): T[] {
  const dir = spec.descending ? -1 : 1;
  return rows.sort((a, b) => {
    const x = get(a, spec.field);
    const y = get(b, spec.field);
    if (x === y) return 0;
    if (x === undefined || x === null) return 1;
    if (y === undefined || y === null) return -1;
    return (x < y ? -1 : 1) * dir;
  });
}
