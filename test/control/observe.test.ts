import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { openStream, type StreamReader } from '../helpers/sse.ts';

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
    expect(entries[1]).toMatchObject({ requestId: 'trace-1', status: 200, workspaceId: t.sandboxWorkspaceId, keyPrefix: KEYS.sandboxFull.slice(0, 19) }); // tcs_test_borealis_f: long enough to tell the workspace's keys apart
    expect(typeof entries[1].latencyMs).toBe('number');
    expect((await t.request('DELETE', '/__sandbox/requests', { key: null })).json().data).toEqual({ cleared: true });
    expect((await t.request('GET', '/__sandbox/requests', { key: null })).json().data).toEqual([]);
  });
});

describe('live stream (SSE)', () => {
  let sandbox: Sandbox | undefined;
  afterEach(() => sandbox?.stop());

  it('streams requests and rate-limit changes as Server-Sent Events', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    const stream = await openStream(sandbox.controlUrl);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream');
    await stream.readUntil('event: hello');
    await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    await stream.readUntil('event: request');
    await stream.readUntil('"path":"/v1/products?limit=1"');
    expect(stream.text).toContain('event: rate-limit');
    stream.close();
  });

  it("detail=none: request events carry no headers or bodies; one request's are read by its id while kept", async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    const full = await openStream(sandbox.controlUrl);
    const lean = await openStream(sandbox.controlUrl, '?detail=none');
    await Promise.all([full.readUntil('event: hello'), lean.readUntil('event: hello')]);
    const res = await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}`, 'x-request-id': 'req-detail-1' } });
    expect(res.status).toBe(200);
    await Promise.all([full.readUntil('"requestId":"req-detail-1"'), lean.readUntil('"requestId":"req-detail-1"')]);
    const fromFull = full.firstData('request') as { requestId: string; detail?: { request: { headers: Record<string, string> }; response: { body: string } } };
    const fromLean = lean.firstData('request') as { requestId: string; detail?: unknown };
    expect(fromFull.detail?.request.headers.authorization).toMatch(/^Bearer tcs_live_aurora_\w*…$/); // the key prefix, never the key
    expect(fromFull.detail?.request.headers.authorization).not.toContain(KEYS.liveFull);
    expect(fromFull.detail?.response.body).toContain('"data"');
    expect(fromLean.requestId).toBe('req-detail-1');
    expect(fromLean.detail).toBeUndefined();
    const one = await fetch(`${sandbox.controlUrl}/requests/req-detail-1`);
    expect(one.status).toBe(200);
    const { data } = (await one.json()) as {
      data: { requestId: string; status: number; detail: { response: { body: string; headers: Record<string, string> } } };
    };
    expect(data.requestId).toBe('req-detail-1');
    expect(data.status).toBe(200);
    expect(data.detail.response.body).toBe(fromFull.detail!.response.body);
    expect(data.detail.response.headers['x-request-id']).toBe('req-detail-1');
    const missing = await fetch(`${sandbox.controlUrl}/requests/req-never`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'Request req-never not found' });
    expect((await fetch(`${sandbox.controlUrl}/stream?detail=some`)).status).toBe(400);
    full.close();
    lean.close();
  });

  it('requests=batched: a run of requests is one `requests` event, a table, in its place among the other events', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    const batched = await openStream(sandbox.controlUrl, '?detail=none&requests=batched');
    await batched.readUntil('event: hello');
    const get = (id: string) => fetch(`${sandbox!.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}`, 'x-request-id': id } });
    await Promise.all([get('req-batch-1'), get('req-batch-2')]);
    expect((await fetch(`${sandbox.controlUrl}/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    await get('req-batch-3');
    await batched.readUntil('"req-batch-3"');
    expect(batched.text).not.toContain('event: request\n');
    const events = [...batched.text.matchAll(/event: (requests|reset)\ndata: (.*)\n/g)].map(([, event, data]) => {
      if (event !== 'requests') return event;
      const { columns, rows } = JSON.parse(data!) as { columns: string[]; rows: unknown[][] };
      expect(columns).toEqual(['requestId', 'method', 'path', 'status', 'latencyMs', 'workspaceId', 'keyPrefix', 'at', 'warnings', 'reason', 'detail']);
      for (const row of rows)
        expect(row).toEqual([
          expect.any(String),
          'GET',
          '/v1/products?limit=1',
          200,
          expect.any(Number),
          expect.stringMatching(/^wksp_/),
          'tcs_live_aurora_f',
          expect.any(String),
          null,
          null,
          null,
        ]);
      return rows.map((row) => row[0]);
    });
    // the two before the reset arrive before it, the third after it, whichever writes they shared
    expect(events.flat()).toEqual([expect.stringMatching(/^req-batch-[12]$/), expect.stringMatching(/^req-batch-[12]$/), 'reset', 'req-batch-3']);
    expect((await fetch(`${sandbox.controlUrl}/stream?requests=some`)).status).toBe(400);
    batched.close();
  });

  it('events=: a client gets only the events it names (and hello); what no client reads is not captured', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    const resets = await openStream(sandbox.controlUrl, '?events=reset');
    await resets.readUntil('event: hello');
    const res = await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}`, 'x-request-id': 'req-events-1' } });
    expect(res.status).toBe(200);
    const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
    expect((await fetch(`${sandbox.controlUrl}/reset`, post)).status).toBe(200);
    await resets.readUntil('event: reset');
    expect(resets.text).not.toContain('event: request');
    expect(resets.text).not.toContain('event: rate-limit');
    // a /v1 request is captured at all times (so that Copy as curl works for a request made before any viewer opened)
    const logged = (await (await fetch(`${sandbox.controlUrl}/requests/req-events-1`)).json()) as { data: { requestId: string; detail?: unknown } };
    expect(logged.data.requestId).toBe('req-events-1');
    expect(logged.data.detail).toBeDefined();
    // outside /v1 (a 404), no client reads requests, so none was captured: the entry without headers or bodies
    expect((await fetch(`${sandbox.url}/nowhere`, { headers: { 'x-request-id': 'req-events-2' } })).status).toBe(404);
    const other = (await (await fetch(`${sandbox.controlUrl}/requests/req-events-2`)).json()) as { data: { requestId: string; detail?: unknown } };
    expect(other.data.requestId).toBe('req-events-2');
    expect(other.data.detail).toBeUndefined();
    const bad = await fetch(`${sandbox.controlUrl}/stream?events=request,bogus`);
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-sandbox-reason')).toBe(
      'VALIDATION_400 querystring.events: a comma-separated list of request, domain, delivery, rate-limit, reset',
    );
    resets.close();
  });

  it('capture=off: the client gets request events, and no request is captured for it (the Keys view)', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    const keys = await openStream(sandbox.controlUrl, '?events=request&detail=none&capture=off');
    await keys.readUntil('event: hello');
    // outside /v1: a /v1 request is captured at all times
    const get = (id: string) => fetch(`${sandbox!.url}/nowhere`, { headers: { 'x-request-id': id } });
    expect((await get('req-nocap-1')).status).toBe(404);
    await keys.readUntil('"requestId":"req-nocap-1"');
    const detailOf = async (id: string) =>
      ((await (await fetch(`${sandbox!.controlUrl}/requests/${id}`)).json()) as { data: { detail?: unknown } }).data.detail;
    expect(await detailOf('req-nocap-1')).toBeUndefined();
    // a client that may open a request's details (the Requests view) still has them captured
    const requests = await openStream(sandbox.controlUrl, '?events=request&detail=none');
    await requests.readUntil('event: hello');
    expect((await get('req-nocap-2')).status).toBe(404);
    await requests.readUntil('"requestId":"req-nocap-2"');
    expect(await detailOf('req-nocap-2')).toBeDefined();
    expect((await fetch(`${sandbox.controlUrl}/stream?capture=maybe`)).status).toBe(400);
    keys.close();
    requests.close();
  });

  it('streams each webhook delivery attempt with its attempt number and maximum', async () => {
    sandbox = await createSandbox({ port: 0 });
    const receiver = createServer((_req, res) => res.writeHead(500).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as { port: number }).port;
    let stream: StreamReader | undefined;
    try {
      const created = await fetch(`${sandbox.url}/v1/webhooks/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['booking.created'], maxRetries: 2 }),
      });
      expect(created.status).toBe(201);
      stream = await openStream(sandbox.controlUrl);
      const live = sandbox.workspaces.find((w) => w.mode === 'live')!.id;
      await fetch(`${sandbox.controlUrl}/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workspaceId: live, type: 'booking.created' }),
      });
      await stream.readUntil('event: delivery');
      expect(stream.firstData('delivery')).toMatchObject({ eventType: 'booking.created', attempt: 1, maxAttempts: 3, responseStatus: 500, status: 'pending' });
    } finally {
      stream?.close();
      receiver.close();
    }
  });
});
