import { afterEach, describe, expect, it } from 'vitest';
import { createParityRecorder } from '../../src/parity/report.ts';
import type { Answer } from '../../src/parity/types.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/** GET/DELETE /__sandbox/parity and GET /__sandbox/parity/examples/:requestId. */
let t: TestSandbox | undefined;
afterEach(() => t?.sandbox.stop());
const control = (method: string, path: string) => t!.request(method, `/__sandbox${path}`, { key: null });

const answer = (status: number, body: unknown): Answer => ({ status, headers: { 'x-request-id': 'r', 'content-type': 'application/json' }, body });

describe('the parity report routes', () => {
  it('answer 404 with the way to start a proxy when the sandbox is not one', async () => {
    t = await testSandbox();
    for (const [method, path] of [
      ['GET', '/parity'],
      ['GET', '/parity/examples/req_1'],
      ['DELETE', '/parity'],
    ] as const) {
      const res = await control(method, path);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Parity report not found' });
      expect(res.headers['x-sandbox-reason']).toBe('NOT_A_PROXY this sandbox is not running as a parity proxy: start it with `sandbox proxy --target <url>`');
    }
  });

  it('serve the recorder: the report, the two answers of a first example, and a clear', async () => {
    t = await testSandbox();
    const recorder = createParityRecorder({ routes: t.sandbox.context.routes });
    t.sandbox.context.parity.recorder = recorder;
    recorder.record({
      requestId: 'req_a',
      method: 'GET',
      urlPath: '/v1/products/prod_1',
      target: answer(200, { data: { id: 'p', brand: 'x' } }),
      sandbox: answer(200, { data: { id: 'q' } }),
      learned: false,
      unknownIds: [],
    });
    const report = await control('GET', '/parity');
    expect(report.statusCode).toBe(200);
    expect(report.json()).toEqual({
      data: {
        requests: 1,
        compared: 1,
        omitted: 0,
        notCompared: [],
        differences: [
          {
            kind: 'missing-field',
            method: 'GET',
            path: '/v1/products/{id}',
            field: 'data.brand',
            target: 'string',
            sandbox: 'absent',
            count: 1,
            requestId: 'req_a',
          },
        ],
      },
    });
    const example = await control('GET', '/parity/examples/req_a');
    expect(example.json()).toEqual({ data: { target: answer(200, { data: { id: 'p', brand: 'x' } }), sandbox: answer(200, { data: { id: 'q' } }) } });
    const missing = await control('GET', '/parity/examples/req_none');
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['x-sandbox-reason']).toMatch(/^NOT_FOUND no example has the request id req_none/);
    expect((await control('DELETE', '/parity')).json()).toEqual({ data: { cleared: true } });
    expect((await control('GET', '/parity')).json().data).toEqual({ requests: 0, compared: 0, differences: [], omitted: 0, notCompared: [] });
  });
});
