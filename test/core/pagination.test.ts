import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.ts';
import { bookingListEnvelopeSchema, bookingPage, paginate, paginationEnvelopeSchema, paginationQuery, parseSort, sortRows } from '../../src/core/pagination.ts';

/**
 * Pagination, sorting and the two list envelopes (API description, "Envelopes",
 * "Common request rules"; src/core/pagination.ts).
 */
describe('limit and offset', () => {
  const query = z.object(paginationQuery(20));

  it('default to the resource default and 0', () => {
    expect(query.parse({})).toEqual({ limit: 20, offset: 0 });
    expect(z.object(paginationQuery(50)).parse({})).toEqual({ limit: 50, offset: 0 });
  });

  it('take query strings: limit 1..100, offset from 0, integers only', () => {
    expect(query.parse({ limit: '1', offset: '0' })).toEqual({ limit: 1, offset: 0 });
    expect(query.parse({ limit: '100', offset: '7' })).toEqual({ limit: 100, offset: 7 });
    for (const bad of [{ limit: '0' }, { limit: '101' }, { limit: '2.5' }, { offset: '-1' }, { offset: '1.5' }, { limit: 'ten' }]) {
      expect(query.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('describe themselves for the OpenAPI document', () => {
    const { limit, offset } = paginationQuery(25);
    expect(limit.description).toBe('page size, default 25, max 100');
    expect(offset.description).toBe('rows to skip, default 0');
  });
});

describe('envelopes', () => {
  it('the default envelope: {data, pagination: {total, limit, offset, has_more}}', () => {
    const schema = paginationEnvelopeSchema(z.string());
    const good = { data: ['a'], pagination: { total: 3, limit: 1, offset: 0, has_more: true } };
    expect(schema.parse(good)).toEqual(good);
    expect(schema.safeParse({ ...good, data: [1] }).success).toBe(false);
    expect(schema.safeParse({ data: ['a'], meta: { total: 3, limit: 1, offset: 0, hasMore: true } }).success).toBe(false);
    for (const field of ['total', 'limit', 'offset'] as const) {
      expect(schema.safeParse({ ...good, pagination: { ...good.pagination, [field]: 1.5 } }).success).toBe(false);
    }
    expect(schema.safeParse({ ...good, pagination: { ...good.pagination, has_more: 'yes' } }).success).toBe(false);
  });

  it('the booking envelope: {data, meta: {total, limit, offset, hasMore}}', () => {
    const schema = bookingListEnvelopeSchema(z.string());
    const good = { data: ['a'], meta: { total: 3, limit: 1, offset: 0, hasMore: true } };
    expect(schema.parse(good)).toEqual(good);
    expect(schema.safeParse({ ...good, data: [1] }).success).toBe(false);
    expect(schema.safeParse({ data: ['a'], pagination: { total: 3, limit: 1, offset: 0, has_more: true } }).success).toBe(false);
    for (const field of ['total', 'limit', 'offset'] as const) {
      expect(schema.safeParse({ ...good, meta: { ...good.meta, [field]: 1.5 } }).success).toBe(false);
    }
    expect(schema.safeParse({ ...good, meta: { ...good.meta, hasMore: 'yes' } }).success).toBe(false);
  });

  it('paginate: the page of rows, the total and whether more follow', () => {
    const rows = [10, 20, 30, 40, 50];
    expect(paginate(rows, { limit: 2, offset: 0 })).toEqual({ data: [10, 20], pagination: { total: 5, limit: 2, offset: 0, has_more: true } });
    expect(paginate(rows, { limit: 2, offset: 2 })).toEqual({ data: [30, 40], pagination: { total: 5, limit: 2, offset: 2, has_more: true } });
    expect(paginate(rows, { limit: 2, offset: 4 })).toEqual({ data: [50], pagination: { total: 5, limit: 2, offset: 4, has_more: false } });
    expect(paginate(rows, { limit: 10, offset: 0 })).toEqual({ data: rows, pagination: { total: 5, limit: 10, offset: 0, has_more: false } });
    expect(paginate([], { limit: 3, offset: 0 })).toEqual({ data: [], pagination: { total: 0, limit: 3, offset: 0, has_more: false } });
  });

  it('paginate: walking the pages while has_more gives every row once, in order, in full pages but the last', () => {
    fc.assert(
      fc.property(fc.array(fc.integer(), { maxLength: 30 }), fc.integer({ min: 1, max: 10 }), (rows, limit) => {
        const walked: number[] = [];
        for (let offset = 0; ; offset += limit) {
          const page = paginate(rows, { limit, offset });
          expect(page.pagination.total).toBe(rows.length);
          walked.push(...page.data);
          if (!page.pagination.has_more) break;
          expect(page.data).toHaveLength(limit);
        }
        expect(walked).toEqual(rows);
      }),
    );
  });

  it('paginate: the last full page has no more; one row short of it has', () => {
    expect(paginate([1, 2, 3, 4], { limit: 2, offset: 2 }).pagination.has_more).toBe(false);
    expect(paginate([1, 2, 3, 4], { limit: 2, offset: 1 }).pagination.has_more).toBe(true);
    expect(paginate([1, 2, 3, 4], { limit: 2, offset: 9 })).toEqual({ data: [], pagination: { total: 4, limit: 2, offset: 9, has_more: false } });
  });

  it('bookingPage: hasMore while rows remain after this page', () => {
    expect(bookingPage(['c', 'd'], 4, { limit: 2, offset: 2 })).toEqual({ data: ['c', 'd'], meta: { total: 4, limit: 2, offset: 2, hasMore: false } });
    expect(bookingPage(['b', 'c'], 4, { limit: 2, offset: 1 })).toEqual({ data: ['b', 'c'], meta: { total: 4, limit: 2, offset: 1, hasMore: true } });
    expect(bookingPage(['d'], 4, { limit: 2, offset: 3 }).meta.hasMore).toBe(false);
  });
});

describe('sort', () => {
  const fallback = { field: 'createdAt', descending: true };
  const allowed = ['createdAt', 'total_amount', 'name'];

  it('no sort, or an empty one, is the fallback', () => {
    expect(parseSort(undefined, allowed, fallback)).toBe(fallback);
    expect(parseSort('', allowed, fallback)).toBe(fallback);
  });

  it('a leading - is descending; snake_case and camelCase spell the same field', () => {
    expect(parseSort('name', allowed, fallback)).toEqual({ field: 'name', descending: false });
    expect(parseSort('-name', allowed, fallback)).toEqual({ field: 'name', descending: true });
    expect(parseSort('-created_at', allowed, fallback)).toEqual({ field: 'createdAt', descending: true });
    expect(parseSort('createdAt', allowed, fallback)).toEqual({ field: 'createdAt', descending: false });
    expect(parseSort('totalAmount', allowed, fallback)).toEqual({ field: 'total_amount', descending: false });
    expect(parseSort('-total_amount', allowed, fallback)).toEqual({ field: 'total_amount', descending: true });
  });

  it('an unknown field is a 400 INVALID_SORT that names the choices', () => {
    for (const raw of ['price', '--name', 'name-', 'createdat', 'created__at', 'created_At']) {
      let error: unknown;
      try {
        parseSort(raw, allowed, fallback);
      } catch (err) {
        error = err;
      }
      expect(error, raw).toBeInstanceOf(ApiError);
      const api = error as ApiError;
      expect(api.statusCode).toBe(400);
      expect(api.body).toEqual({
        code: 'INVALID_SORT',
        error: `Invalid sort "${raw}": sort by one of createdAt, total_amount, name (prefix - for descending)`,
      });
    }
  });

  const get = (row: Record<string, unknown>, field: string) => row[field];

  it('sorts ascending or descending; missing values last either way', () => {
    const rows = () => [{ n: 2 }, { n: undefined }, { n: 3 }, { n: null }, { n: 1 }, { n: 2 }];
    expect(sortRows(rows(), { field: 'n', descending: false }, get).map((r) => r.n)).toEqual([1, 2, 2, 3, undefined, null]);
    expect(sortRows(rows(), { field: 'n', descending: true }, get).map((r) => r.n)).toEqual([3, 2, 2, 1, undefined, null]);
    expect(sortRows([{ n: null }, { n: 1 }], { field: 'n', descending: false }, get).map((r) => r.n)).toEqual([1, null]);
    expect(sortRows([{ n: 1 }, { n: undefined }], { field: 'n', descending: true }, get).map((r) => r.n)).toEqual([1, undefined]);
  });

  it('is a stable total order on strings and numbers', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ k: fc.integer({ min: 0, max: 5 }), i: fc.nat() })), fc.boolean(), (input, descending) => {
        const rows = input.map((r, i) => ({ k: r.k, i }));
        const sorted = sortRows([...rows], { field: 'k', descending }, (row, field) => row[field as 'k']);
        const expected = [...rows].sort((a, b) => (descending ? b.k - a.k : a.k - b.k) || a.i - b.i);
        expect(sorted).toEqual(expected);
      }),
    );
    expect(sortRows([{ s: 'b' }, { s: 'a' }, { s: 'c' }], { field: 's', descending: false }, get).map((r) => r.s)).toEqual(['a', 'b', 'c']);
  });
});
