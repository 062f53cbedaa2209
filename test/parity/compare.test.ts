import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createParityRecorder, PARITY_LIMITS } from '../../src/parity/report.ts';
import type { Answer, Exchange, IgnoreRule } from '../../src/parity/types.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * The comparison and the report of the parity proxy, fed hand-made
 * exchanges: the sandbox's own answers as the target's, with values changed where they
 * legitimately differ (ids, times, money) and known differences planted.
 */
let t: TestSandbox;
let booking: Answer;
let products: Answer;
beforeAll(async () => {
  t = await testSandbox();
  const answerOf = async (path: string): Promise<Answer> => {
    const res = await t.request('GET', path, { key: KEYS.sandboxFull });
    const headers = Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, String(value)]));
    return { status: res.statusCode, headers, body: res.json() };
  };
  products = await answerOf('/v1/products?limit=3');
  const list = (await answerOf('/v1/bookings?limit=1')).body as { data: { id: string }[] };
  booking = await answerOf(`/v1/bookings/${list.data[0]!.id}`);
});
afterAll(() => t.sandbox.stop());

const recorder = (ignore?: IgnoreRule[]) => createParityRecorder({ routes: t.sandbox.context.routes, ...(ignore ? { ignore } : {}) });
const copy = <T>(value: T): T => structuredClone(value);
let ids = 0;
function exchange(method: string, urlPath: string, target: Answer, sandbox: Answer | null, more: Partial<Exchange> = {}): Exchange {
  return { requestId: `req_${++ids}`, method, urlPath, target, sandbox, learned: false, unknownIds: [], ...more };
}
/** the same answer from another account: every id, time, code and amount differs */
function otherValues(answer: Answer): Answer {
  const out = copy(answer);
  const data = (out.body as { data: Record<string, unknown> }).data;
  Object.assign(data, {
    id: 'book_11111111-2222-3333-4444-555555555555',
    code: 'XYZ-000000',
    createdAt: '2020-01-01T00:00:00.000Z',
    totals: { subtotal: 1, taxes: 2, discounts: 3, total: 4 },
    adults: 7,
  });
  out.headers['x-request-id'] = 'req_target_side';
  out.headers['x-ratelimit-remaining'] = '2999';
  out.headers['x-ratelimit-reset'] = '1999999999';
  return out;
}
const bookingPath = () => `/v1/bookings/${(booking.body as { data: { id: string } }).data.id}`;
const data = (answer: Answer) => (answer.body as { data: Record<string, unknown> }).data;
const notFound: Answer = {
  status: 404,
  headers: {
    'x-request-id': 'r',
    'x-ratelimit-limit': '100',
    'x-ratelimit-remaining': '9',
    'x-ratelimit-reset': '1700000000',
    'content-type': 'application/json',
  },
  body: { error: 'Booking book_1 not found', code: 'NOT_FOUND' },
};

describe('the parity comparison', () => {
  it('reports nothing for answers that differ only by values: ids, times, codes, money, counters', () => {
    const r = recorder();
    r.record(exchange('GET', bookingPath(), otherValues(booking), booking));
    r.record(exchange('GET', '/v1/bookings/book_x', notFound, { ...notFound, body: { error: 'Booking book_2 not found', code: 'NOT_FOUND' } }));
    expect(r.report()).toEqual({ requests: 2, compared: 2, differences: [], omitted: 0, notCompared: [] });
  });

  it('reports exactly the planted differences, one of every kind, with their counts, operation and first request id', () => {
    const r = recorder();
    // status, twice
    r.record(exchange('POST', '/v1/bookings', { ...booking, status: 201 }, { ...notFound, status: 422 }, { requestId: 'req_status' }));
    r.record(exchange('POST', '/v1/bookings', { ...booking, status: 201 }, { ...notFound, status: 400 }));
    // missing-field, extra-field, type and enum in one answer
    const target = otherValues(booking);
    Object.assign(data(target), { brand: 'Aurora', adults: '3', status: 'confirmed' });
    const sandbox = copy(booking);
    Object.assign(data(sandbox), { internalNote: 'x', status: 'pending' });
    delete data(sandbox).notes;
    // header: the target sends milliseconds, the sandbox no request id
    target.headers['x-ratelimit-reset'] = '1999999999000';
    delete sandbox.headers['x-request-id'];
    r.record(exchange('GET', bookingPath(), target, sandbox, { requestId: 'req_shape' }));
    // error: same status, another code
    r.record(
      exchange(
        'GET',
        '/v1/bookings/book_1',
        notFound,
        { ...notFound, body: { error: 'Booking book_1 not found', code: 'BOOKING_NOT_FOUND' } },
        { requestId: 'req_error' },
      ),
    );
    // unknown-id: data, reported apart
    r.record(exchange('GET', '/v1/people/ppl_9', notFound, null, { unknownIds: ['ppl_9'], requestId: 'req_unknown' }));
    const report = r.report();
    expect(report.requests).toBe(5);
    expect(report.compared).toBe(4);
    const lines = report.differences.map((d) => [d.kind, d.method, d.path, d.field, d.target, d.sandbox, d.count, d.requestId]);
    expect(lines).toEqual([
      ['status', 'POST', '/v1/bookings', '', 201, 422, 2, 'req_status'],
      ['missing-field', 'GET', '/v1/bookings/{id}', 'data.brand', 'string', 'absent', 1, 'req_shape'],
      ['missing-field', 'GET', '/v1/bookings/{id}', 'data.notes', 'null', 'absent', 1, 'req_shape'],
      ['extra-field', 'GET', '/v1/bookings/{id}', 'data.internalNote', 'absent', 'string', 1, 'req_shape'],
      ['type', 'GET', '/v1/bookings/{id}', 'data.adults', 'string', 'number', 1, 'req_shape'],
      ['header', 'GET', '/v1/bookings/{id}', 'X-RateLimit-Reset', 'integer (Unix milliseconds)', 'integer (Unix seconds)', 1, 'req_shape'],
      ['header', 'GET', '/v1/bookings/{id}', 'X-Request-ID', 'text', 'absent', 1, 'req_shape'],
      ['error', 'GET', '/v1/bookings/{id}', 'code', 'NOT_FOUND', 'BOOKING_NOT_FOUND', 1, 'req_error'],
      ['enum', 'GET', '/v1/bookings/{id}', 'data.status', 'confirmed', 'pending', 1, 'req_shape'],
      ['unknown-id', 'GET', '/v1/people/{id}', '', 'ppl_9', 'unknown to the sandbox', 1, 'req_unknown'],
    ]);
    // the first example's two answers, for the side-by-side view
    expect(r.example('req_shape')).toEqual({
      target: expect.objectContaining({ status: 200, body: target.body }),
      sandbox: expect.objectContaining({ status: 200, body: sandbox.body }),
    });
    expect(r.example('req_unknown')?.sandbox).toBeNull();
    expect(r.example('req_nothing')).toBeUndefined();
  });

  it('counts a difference on every exchange that has it, and keeps the first request id', () => {
    const r = recorder();
    for (let i = 0; i < 3; i++) {
      const sandbox = copy(booking);
      data(sandbox).extra = i;
      r.record(exchange('GET', bookingPath(), booking, sandbox, { requestId: `req_count_${i}` }));
    }
    expect(r.report().differences).toEqual([expect.objectContaining({ kind: 'extra-field', field: 'data.extra', count: 3, requestId: 'req_count_0' })]);
    r.clear();
    expect(r.report()).toEqual({ requests: 0, compared: 0, differences: [], omitted: 0, notCompared: [] });
    expect(r.example('req_count_0')).toBeUndefined();
  });

  it('never reports learning as drift: no status, no missing field; the calls after it are compared', () => {
    const r = recorder();
    r.record(exchange('GET', bookingPath(), booking, notFound, { learned: true }));
    r.record(
      exchange('GET', '/v1/products', products, { ...products, body: { data: [], meta: (products.body as { meta: unknown }).meta } }, { learned: true }),
    );
    expect(r.report()).toMatchObject({ requests: 2, compared: 0, differences: [], omitted: 0 });
    // not compared, each with its reason
    expect(r.report().notCompared!.map((n) => [n.reason, n.method, n.path, n.count])).toEqual([
      ['learned', 'GET', '/v1/bookings/{id}', 1],
      ['learned', 'GET', '/v1/products', 1],
    ]);
    r.record(exchange('GET', bookingPath(), booking, notFound));
    expect(r.report().differences.map((d) => d.kind)).toEqual(['status']);
  });

  it('keeps in the report a field of a learned record that could not be mapped, never one the target did not send', () => {
    const r = recorder();
    const id = data(booking).id as string;
    const target: Answer = { ...booking, body: { data: { ...data(booking), loyaltyTier: 'gold' } } };
    // loyaltyTier: no place for it in our schema; voucherCode: ours requires it, the target sent none
    r.record(exchange('GET', bookingPath(), target, notFound, { learned: true, unmapped: [{ id, fields: ['loyaltyTier', 'voucherCode'] }] }));
    expect(r.report().differences).toEqual([
      {
        kind: 'missing-field',
        method: 'GET',
        path: '/v1/bookings/{id}',
        field: 'data.loyaltyTier',
        target: 'string',
        sandbox: 'absent',
        count: 1,
        requestId: expect.any(String),
      },
    ]);
    const item = (products.body as { data: { id: string; status: string }[] }).data[0]!;
    r.record(exchange('GET', '/v1/products', products, products, { learned: true, unmapped: [{ id: item.id, fields: ['status'] }] }));
    expect(r.report().differences.map((d) => d.field)).toEqual(['data.loyaltyTier', 'data[].status']);
  });

  it("does not compare an answer that is a rate limit: the target's budget is not the sandbox's", () => {
    const r = recorder();
    r.record(
      exchange('GET', bookingPath(), { ...notFound, status: 429, body: { error: 'Rate limit exceeded', retry_after: 3 } }, booking, { requestId: 'req_429' }),
    );
    expect(r.report()).toEqual({
      requests: 1,
      compared: 0,
      differences: [],
      omitted: 0,
      notCompared: [
        {
          reason: 'rate-limited',
          method: 'GET',
          path: '/v1/bookings/{id}',
          count: 1,
          requestId: 'req_429',
          detail: "rate-limited: the target answered 429; the target's budget is not the sandbox's",
        },
      ],
    });
  });

  it('compares a list page by the shape of its items, not item by item: other records are not drift', () => {
    const r = recorder();
    const items = (products.body as { data: Record<string, unknown>[] }).data;
    // the target's catalog: other records, another count; one item has a field the sandbox's never have
    const target = copy(products);
    const targetItems: Record<string, unknown>[] = [...copy(items), ...copy(items)].map((item, i) => ({
      ...item,
      id: `prod_t${i}`,
      title: `T${i}`,
      priceFrom: i,
    }));
    targetItems[4]!.brand = 'Borealis';
    (target.body as { data: unknown[] }).data = targetItems;
    const sandbox = copy(products);
    (sandbox.body as { data: unknown[] }).data = items.slice(1).reverse();
    r.record(exchange('GET', '/v1/products', target, sandbox, { requestId: 'req_list' }));
    // a sandbox page without items says nothing of the items' shape
    r.record(exchange('GET', '/v1/products', target, { ...sandbox, body: { ...(sandbox.body as object), data: [] } }));
    expect(r.report().differences.map((d) => [d.kind, d.field, d.count])).toEqual([['missing-field', 'data[].brand', 1]]);
  });

  it('reports a value outside the documented set in a list item, and not a documented value that differs', () => {
    const r = recorder();
    const target = copy(products);
    const targetItems = (target.body as { data: Record<string, unknown>[] }).data;
    targetItems[0]!.status = 'retired';
    targetItems[1]!.status = 'archived';
    r.record(exchange('GET', '/v1/products', target, products));
    const [difference] = r.report().differences;
    expect(difference).toMatchObject({ kind: 'enum', field: 'data[].status', target: 'retired' });
    expect(String(difference!.sandbox)).toMatch(/^one of .*active/);
  });

  it('a value against null is not a type difference; nullability is, only when one side is never null', () => {
    const r = recorder();
    const nullTarget = copy(booking);
    data(nullTarget).couponCode = null;
    const withCode = copy(booking);
    data(withCode).couponCode = 'SPRING';
    r.record(exchange('GET', bookingPath(), nullTarget, withCode, { requestId: 'req_null_1' }));
    r.record(exchange('GET', bookingPath(), nullTarget, withCode));
    // so far the sandbox was never null there and the target was: nullability
    expect(r.report().differences.map((d) => [d.kind, d.field, d.target, d.sandbox, d.count, d.requestId])).toEqual([
      ['type', 'data.couponCode', 'null', 'string', 2, 'req_null_1'],
    ]);
    // the sandbox is null there too, on another record: both sides are nullable, nothing to report
    const nullSandbox = copy(booking);
    data(nullSandbox).couponCode = null;
    r.record(exchange('GET', bookingPath(), withCode, nullSandbox));
    expect(r.report().differences).toEqual([]);
  });

  it('resolves the path template by the route catalog, static segments first', () => {
    const r = recorder();
    r.record(exchange('GET', '/v1/bookings/wizard/session', booking, notFound));
    r.record(exchange('get', '/v1/bookings/book_1/passengers', booking, notFound));
    r.record(exchange('GET', '/v1/nothing/abc123/here', booking, notFound));
    r.record(exchange('POST', '/v1/bookings/', booking, notFound)); // a trailing slash is the same route
    expect(
      r
        .report()
        .differences.map((d) => `${d.method} ${d.path}`)
        .sort(),
    ).toEqual(['GET /v1/bookings/wizard/session', 'GET /v1/bookings/{id}/passengers', 'GET /v1/nothing/{id}/here', 'POST /v1/bookings']);
  });

  it('drops what the ignore rules match: a path glob, with or without a method, a kind and a field', () => {
    const planted = () => {
      const sandbox = copy(booking);
      Object.assign(data(sandbox), { internalNote: 'x', adults: 'three' });
      return sandbox;
    };
    const run = (ignore: IgnoreRule[]) => {
      const r = recorder(ignore);
      r.record(exchange('GET', bookingPath(), booking, planted()));
      r.record(exchange('GET', '/v1/people/ppl_1', notFound, null, { unknownIds: ['ppl_1'] }));
      return r.report().differences.map((d) => `${d.kind} ${d.field}`);
    };
    expect(run([])).toEqual(['extra-field data.internalNote', 'type data.adults', 'unknown-id ']);
    expect(run([{ path: 'GET /v1/bookings/*', kind: 'extra-field' }])).toEqual(['type data.adults', 'unknown-id ']);
    expect(run([{ path: '/v1/bookings/{id}' }])).toEqual(['unknown-id ']);
    expect(
      run([
        { path: '/v1/bookings/:id', kind: 'type', field: 'data.adul*' },
        { path: '*', kind: 'unknown-id' },
      ]),
    ).toEqual(['extra-field data.internalNote']);
    expect(run([{ path: 'POST /v1/bookings/*' }])).toHaveLength(3);
  });

  it('keeps at most the bounded number of examples and differences', () => {
    const r = recorder();
    const total = PARITY_LIMITS.differences + 10;
    for (let i = 0; i < total; i++) {
      const sandbox = copy(booking);
      data(sandbox)[`f${i}`] = 1;
      r.record(exchange('GET', bookingPath(), booking, sandbox, { requestId: `req_bound_${i}` }));
    }
    const report = r.report();
    expect(report.differences).toHaveLength(PARITY_LIMITS.differences);
    expect(report.omitted).toBe(10);
    expect(r.example(`req_bound_${PARITY_LIMITS.examples - 1}`)).toBeDefined();
    expect(r.example(`req_bound_${PARITY_LIMITS.examples}`)).toBeUndefined();
  });

  it('never keeps a secret header of an answer in an example', () => {
    const r = recorder();
    const target = { ...booking, headers: { ...booking.headers, 'set-cookie': 'session=secret' } };
    const sandbox = copy(booking);
    data(sandbox).extra = 1;
    r.record(exchange('GET', bookingPath(), target, sandbox, { requestId: 'req_cookie' }));
    expect(r.example('req_cookie')!.target.headers['set-cookie']).toBeUndefined();
  });
});
