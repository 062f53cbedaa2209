import { describe, expect, it } from 'vitest';
import { requestDetailLines } from '../../src/dashboard/details.ts';

/** A request's details show the warnings the sandbox attached to it. */
describe('request details', () => {
  const row = {
    requestId: 'req_1',
    method: 'POST',
    path: '/v1/forms',
    status: 201,
    latencyMs: 1.2,
    workspaceId: null,
    keyPrefix: null,
    at: '2026-01-15T09:00:00.000Z',
  };

  it('list each warning, in yellow, under the summary', () => {
    const lines = requestDetailLines(
      { ...row, warnings: [{ code: 'UNKNOWN_FIELD', message: 'ignored body.colour: not a field of POST /v1/forms' }] },
      120,
      30,
      {},
    );
    expect(lines[1]).toEqual({ text: 'warning UNKNOWN_FIELD: ignored body.colour: not a field of POST /v1/forms', tone: 'yellow' });
  });

  it('show no warning line when there is none', () => {
    expect(requestDetailLines(row, 120, 30, {}).some((l) => l.text.startsWith('warning'))).toBe(false);
  });
});
