import { describe, expect, it } from 'vitest';
import { junitXml, summaryLines } from '../../src/cli/run-report.ts';
import { jobSummaryMarkdown } from '../../src/report/job-summary.ts';
import type { RunReport } from '../../src/report/schema.ts';

/**
 * How the run report reads: the GitHub job summary's Markdown, and
 * the stderr summary and JUnit text in the singular where a count is one.
 */
const EMPTY: RunReport = {
  since: '2026-01-15T09:00:00.000Z',
  requests: 0,
  operations: [],
  neverCalled: [
    { operationId: 'listProducts', method: 'GET', path: '/v1/products' },
    { operationId: 'createBooking', method: 'POST', path: '/v1/bookings' },
  ],
  warnings: [],
  refusals: [],
  rateLimits: { refused: 0, reported: 0 },
  webhooks: { sent: 0, failed: 0, pending: 0 },
};

const example = { requestId: 'req_1', method: 'POST', path: '/v1/webhooks/subscriptions?a=1|2', status: 201 };
const ONE: RunReport = {
  ...EMPTY,
  requests: 3,
  operations: [
    {
      operationId: 'createWebhooksSubscription',
      method: 'POST',
      path: '/v1/webhooks/subscriptions',
      requests: 2,
      statuses: { 201: 1, 401: 1 },
      warnings: { UNDOCUMENTED_ENDPOINT: 1, UNKNOWN_FIELD: 1 },
    },
    { operationId: null, method: 'GET', path: null, requests: 1, statuses: { 404: 1 }, warnings: {} },
  ],
  neverCalled: [{ operationId: 'listProducts', method: 'GET', path: '/v1/products' }],
  warnings: [
    { code: 'UNDOCUMENTED_ENDPOINT', count: 1, example: { ...example, message: 'the API description does not name this endpoint' } },
    { code: 'UNKNOWN_FIELD', count: 1, example: { ...example, message: 'ignored `colour`' } },
  ],
  refusals: [
    { code: 'MISSING_AUTHORIZATION', count: 1, example: { ...example, status: 401, reason: 'MISSING_AUTHORIZATION send Authorization: Bearer <key>' } },
  ],
  rateLimits: { refused: 0, reported: 2 },
  webhooks: { sent: 1, failed: 0, pending: 0 },
};

describe('the GitHub job summary', () => {
  it('lists the operations called with their statuses, those never called, refusals by reason and warnings', () => {
    const md = jobSummaryMarkdown(ONE, { title: 'sandbox exec', allowed: new Set(['UNDOCUMENTED_ENDPOINT']), exitCode: 1 });
    const lines = md.split('\n');
    expect(lines[0]).toBe('### Sandbox run report: sandbox exec');
    expect(lines).toContain('**3 requests** to /v1 (201 ×1, 401 ×1, 404 ×1) · 1 of 2 operations called · exit 1');
    expect(lines).toContain(
      '| `createWebhooksSubscription` POST /v1/webhooks/subscriptions | 2 | 201 ×1, 401 ×1 | UNDOCUMENTED_ENDPOINT ×1 (allowed), UNKNOWN_FIELD ×1 |',
    );
    expect(lines).toContain('| GET matching no operation | 1 | 404 ×1 |  |');
    expect(lines).toContain('<details><summary>Never called (1)</summary>');
    expect(lines).toContain('`listProducts`');
    expect(lines).toContain(
      '| `MISSING_AUTHORIZATION` | 1 | POST /v1/webhooks/subscriptions?a=1\\|2 → 401: MISSING_AUTHORIZATION send Authorization: Bearer <key> |',
    );
    expect(lines).toContain(
      '| `UNDOCUMENTED_ENDPOINT` (allowed) | 1 | POST /v1/webhooks/subscriptions?a=1\\|2: the API description does not name this endpoint |',
    );
    expect(lines).toContain('Rate limits: 0 refused (429), 2 over the limit let through.');
    expect(lines).toContain('Webhooks: 1 sent, 0 failed, 0 pending.');
    // every table row has as many cells as its header: an unescaped | would add one
    for (const row of lines.filter((l) => l.startsWith('| `MISSING') || l.startsWith('| `UNDOC'))) expect(row.split(/(?<!\\)\|/).length).toBe(5);
  });

  it('says first, in bold, that a run with no request to /v1 checked nothing', () => {
    const md = jobSummaryMarkdown(EMPTY);
    expect(md.split('\n').slice(0, 5)).toEqual([
      '### Sandbox run report',
      '',
      '**⚠️ 0 requests reached /v1: this run checked nothing against the sandbox.**',
      '',
      '**0 requests** to /v1 · 0 of 2 operations called',
    ]);
    expect(md).not.toContain('| Operation |');
  });
});

describe('the run report in the singular', () => {
  const single: RunReport = {
    ...EMPTY,
    requests: 1,
    neverCalled: [],
    operations: [{ operationId: 'listProducts', method: 'GET', path: '/v1/products', requests: 1, statuses: { 200: 1 }, warnings: {} }],
  };

  it('says "1 request" and "1 operation" on stderr', () => {
    expect(summaryLines(single)[0]).toBe('sandbox: 1 request to /v1 (200 x1); 1 of 1 operation called');
    expect(summaryLines(EMPTY)[0]).toBe('sandbox: 0 requests to /v1; 0 of 2 operations called');
  });

  it('says "1 request" in the JUnit output, and lets an allowed warning fail no test case', () => {
    expect(junitXml(single)).toContain('<system-out>1 request: 200 x1</system-out>');
    const xml = junitXml(ONE, new Set(['UNDOCUMENTED_ENDPOINT', 'UNKNOWN_FIELD']));
    expect(xml).toContain('failures="0"');
    expect(xml).toContain('2 requests: 201 x1, 401 x1; allowed warnings: UNDOCUMENTED_ENDPOINT x1, UNKNOWN_FIELD x1');
    expect(junitXml(ONE, new Set(['UNDOCUMENTED_ENDPOINT']))).toContain('message="accepted only by guessing: UNKNOWN_FIELD x1"');
  });
});
