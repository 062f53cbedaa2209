import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

describe('request log', () => {
  let t: TestSandbox | undefined;
  afterEach(() => t?.sandbox.stop());

  it('lists recent API requests, newest first, with method, path, status, latency, key prefix, workspace and request id', async () => {
    t = await testSandbox({ enforceRateLimits: false });
    await t.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull, headers: { 'x-request-id': 'trace-1' } });
    await t.request('GET', '/v1/nope', { key: null });
    const entries = (await t.request('GET', '/__sandbox/requests?limit=5', { key: null })).json().data;
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({ method: 'GET', path: '/v1/nope', status: 401, workspaceId: null });
    expect(entries[1]).toMatchObject({ requestId: 'trace-1', status: 200, workspaceId: t.sandboxWorkspaceId, keyPrefix: KEYS.sandboxFull.slice(0, 16) });
    expect(typeof entries[1].latencyMs).toBe('number');
  });
});

describe('live stream (SSE)', () => {
  let sandbox: Sandbox | undefined;
  afterEach(() => sandbox?.stop());

  it('streams requests and rate-limit changes as Server-Sent Events', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    const controller = new AbortController();
    const res = await fetch(`${sandbox.controlUrl}/stream`, { signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    };
    await readUntil('event: hello');
    await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    await readUntil('event: request');
    await readUntil('"path":"/v1/products?limit=1"');
    expect(text).toContain('event: rate-limit');
    controller.abort();
  });
});
