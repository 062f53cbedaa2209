import { afterEach, describe, expect, it } from 'vitest';
import { RunReportCounters } from '../../src/report/run-report.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/** The run report's counters and its control route (docs/cli.md, "The run report"). */
let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
});

describe('the run report', () => {
  it('counts every request since the start, past the 1,000 the request log keeps, and GET/DELETE /__sandbox/report read and clear it', async () => {
    t = await testSandbox();
    const worker = await t.sandbox.createWorkspace({ rateLimits: 'report' });
    const headers = { authorization: `Bearer ${worker.keys[0]!.key}` };
    for (let i = 0; i < 1_050; i++) await t.sandbox.app.inject({ method: 'GET', url: '/v1/products?limit=1', headers });
    await t.sandbox.app.inject({ method: 'GET', url: '/v1/no-such-thing', headers });
    expect((await t.request('GET', '/__sandbox/requests?limit=1000', { key: null })).json().data).toHaveLength(1_000);
    const res = await t.request('GET', '/__sandbox/report', { key: null });
    expect(res.statusCode).toBe(200);
    const report = res.json().data;
    expect(report).toEqual(t.sandbox.report());
    expect(report.requests).toBe(1_051);
    expect(report.operations).toEqual([
      { operationId: 'listProducts', method: 'GET', path: '/v1/products', requests: 1_050, statuses: { 200: 1_050 }, warnings: {} },
      { operationId: null, method: 'GET', path: null, requests: 1, statuses: { 404: 1 }, warnings: {} },
    ]);
    expect(report.rateLimits).toEqual({ refused: 0, reported: 1_046 }); // 1,051 requests, a burst of 5, a frozen clock
    expect(report.neverCalled.length).toBeGreaterThan(20);
    const documented = (await t.request('GET', '/__sandbox/openapi.json', { key: null })).json().paths['/__sandbox/report'];
    expect(Object.keys(documented)).toEqual(['get', 'delete']);

    expect((await t.request('DELETE', '/__sandbox/report', { key: null })).json().data).toEqual({ cleared: true });
    expect(t.sandbox.report()).toMatchObject({ requests: 0, operations: [], rateLimits: { refused: 0, reported: 0 } });
  });

  it('groups refusals by the code of their reason and warnings by code, each with a count and the first example', () => {
    const counters = new RunReportCounters(() => '2026-01-15T09:00:00.000Z');
    const base = { method: 'GET', route: '/v1/products/:id', url: '/v1/products/prod_1', warnings: null, reason: null, rateReported: false };
    counters.request({ ...base, id: 'req_1', status: 401, reason: 'KEY_REVOKED key tcs_test_...0001 was revoked at 2026-11-25T10:02:11Z' });
    counters.request({ ...base, id: 'req_2', status: 401, reason: 'KEY_REVOKED key tcs_test_...0002 was revoked at 2026-11-25T10:03:00Z' });
    counters.request({ ...base, id: 'req_3', status: 429, reason: 'RATE_LIMITED burst bucket empty' });
    counters.request({ ...base, id: 'req_4', status: 200, warnings: [{ code: 'UNKNOWN_FIELD', message: 'ignored colour' }] });
    const report = counters.build([{ method: 'GET', url: '/v1/products/:id', schema: undefined, inferred: false, scope: undefined, summary: undefined }], 0);
    expect(report.refusals).toEqual([
      {
        code: 'KEY_REVOKED',
        count: 2,
        example: {
          requestId: 'req_1',
          method: 'GET',
          path: '/v1/products/prod_1',
          status: 401,
          reason: 'KEY_REVOKED key tcs_test_...0001 was revoked at 2026-11-25T10:02:11Z',
        },
      },
      {
        code: 'RATE_LIMITED',
        count: 1,
        example: { requestId: 'req_3', method: 'GET', path: '/v1/products/prod_1', status: 429, reason: 'RATE_LIMITED burst bucket empty' },
      },
    ]);
    expect(report.warnings).toEqual([
      { code: 'UNKNOWN_FIELD', count: 1, example: { requestId: 'req_4', method: 'GET', path: '/v1/products/prod_1', status: 200, message: 'ignored colour' } },
    ]);
    expect(report.operations).toEqual([
      {
        operationId: 'getProduct',
        method: 'GET',
        path: '/v1/products/{id}',
        requests: 4,
        statuses: { 200: 1, 401: 2, 429: 1 },
        warnings: { UNKNOWN_FIELD: 1 },
      },
    ]);
    expect(report.rateLimits.refused).toBe(1);
    expect(report.neverCalled).toEqual([]);
  });
});
