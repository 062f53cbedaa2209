import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import { createSandbox, type Sandbox } from '../../src/sandbox.ts';
import { parityJunit, parityMarkdown } from '../../src/cli/parity.ts';
import { openStream, type StreamReader } from '../helpers/sse.ts';
import { call, fakeTarget, type FakeTarget } from './helpers/fake-target.ts';

/**
 * The parity proxy sits in front of a real account, so what it keeps is real. A target that
 * answers with secrets (a new organization key, a subscription's signing secret, tokens planted in
 * bodies, headers and error messages) and a client that sends its key in a header and a query
 * string: afterwards a scan over every store and endpoint the proxy writes finds none of it. The
 * examples, the report (JSON, Markdown, JUnit), the record folder, the request log and its stream,
 * the run report, the workspace's records and the MCP tools' answers.
 */
const ORGANIZATION = 'org_c261cbe9-f001-48f7-8378-287203d1737a'; // fixtures/borealis-adventures.json
const PLANTED = {
  whsec: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  stripeLike: 'sk_live_4eC39HqLyjWDarjtT1zdp7dc',
  cookie: '9f8e7d6c5b4a39281706',
  headerToken: 'tok_live_9d8c7b6a5f4e3d2c1b0a',
};
/** every whole key or secret of the formats the API and webhooks use */
const SHAPES = [/org_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}/, /whsec_[A-Za-z0-9+/]{43}=/, /tcs_(?:test|live)_[A-Za-z0-9]{32}/];

let target: FakeTarget;
let proxied: Sandbox;
let realKey: string;
let record: string;
let stream: StreamReader;
/** what the target answered the client: a real organization key and a real signing secret */
const answered: string[] = [];

beforeAll(async () => {
  target = await fakeTarget();
  record = mkdtempSync(join(tmpdir(), 'proxy-secrets-'));
  proxied = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', proxy: { target: target.url, record } });
  const created = await fetch(`${target.sandbox.controlUrl}/workspaces/${proxied.proxy!.workspaceId}/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'the real account key' }),
  });
  realKey = ((await created.json()) as { data: { key: string } }).data.key;
  stream = await openStream(proxied.controlUrl, '?detail=full');
  await stream.readUntil('event: hello');

  // the target says more than the sandbox, so that each of these answers is kept as an example
  target.plant = (method, path, answer) => {
    const body = answer.body.length > 0 ? (JSON.parse(answer.body.toString()) as Record<string, unknown>) : {};
    const headers = { ...answer.headers, 'set-cookie': [`session=${PLANTED.cookie}; HttpOnly`], 'x-auth-token': PLANTED.headerToken };
    if (method === 'POST' && answer.status < 300) {
      const data = body.data as Record<string, unknown>;
      Object.assign(data, { clientSecret: PLANTED.stripeLike, settings: { signingSecret: PLANTED.whsec, note: `rotated from ${PLANTED.whsec}` } });
    }
    if (path.startsWith('/v1/people/'))
      return { status: 400, headers, body: Buffer.from(JSON.stringify({ error: `Bad Request: key ${realKey} may not read people`, code: 'KEY_REFUSED' })) };
    return { ...answer, headers, body: Buffer.from(JSON.stringify(body)) };
  };
}, 60_000);
afterAll(async () => {
  stream?.close();
  await proxied?.stop();
  await target?.stop();
  rmSync(record, { recursive: true, force: true });
});

/** A request whose path goes to the proxy as written (fetch would normalize it). */
function raw(path: string, headers: Record<string, string>, body?: string): Promise<number> {
  const url = new URL(proxied.proxy!.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: body === undefined ? 'GET' : 'POST',
        headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a hostile target and a careless client', () => {
  it('are answered as the target answered: the client gets every secret that was its own to get', async () => {
    const auth = { authorization: `Bearer ${realKey}` };
    const orgKey = await call(proxied.proxy!.url, 'POST', `/v1/organizations/${ORGANIZATION}/api-keys`, realKey, { scopes: [] });
    expect(orgKey.status).toBeLessThan(300);
    expect((orgKey.json.data as { key: string }).key).toMatch(SHAPES[0]!);
    answered.push((orgKey.json.data as { key: string }).key);
    const subscription = await call(proxied.proxy!.url, 'POST', '/v1/webhooks/subscriptions', realKey, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['booking.created'],
    });
    expect(subscription.status).toBeLessThan(300);
    expect((subscription.json.data as { secret: string }).secret).toMatch(SHAPES[1]!);
    answered.push((subscription.json.data as { secret: string }).secret);
    // a key in a header the API does not read, and in the URL, where the API description says it never goes
    expect(await raw(`/v1/products?limit=2&api_key=${realKey}&access_token=${realKey}`, { 'x-api-key': realKey, 'api-key': realKey })).toBe(401);
    expect(await raw('/v1/products?limit=2', auth)).toBe(200);
    expect(await raw('/v1/people/ppl_00000000-0000-4000-8000-000000000000', auth)).toBe(400);
    await proxied.proxy!.settled();
    const report = (await call(proxied.url, 'GET', '/__sandbox/parity', null)).json.data as { requests: number; differences: { requestId: string }[] };
    expect(report.requests).toBe(5);
    expect(report.differences.length).toBeGreaterThan(0);
  });

  it('leaves no secret in anything the sandbox keeps or serves', async () => {
    const texts = await everythingKept();
    const secrets = [realKey, ...answered, ...Object.values(PLANTED)];
    expect(answered).toHaveLength(2);
    for (const [where, text] of Object.entries(texts)) {
      for (const secret of secrets) expect(text, `${where} holds ${secret.slice(0, 12)}…`).not.toContain(secret);
      // the workspace's own records hold its subscriptions' signing secrets, which it signs with
      if (where !== 'records') for (const shape of SHAPES) expect(text, `${where} holds a whole ${shape.source}`).not.toMatch(shape);
    }
    // and shows that something was there, as its kind and length
    expect(texts.examples).toContain('[redacted organization key, 45 chars]');
    expect(texts.examples).toContain('[redacted webhook secret, 50 chars]');
    expect(texts.examples).toContain('[redacted secret key, 32 chars]');
    expect(texts.requestLog).toMatch(/api_key=%5Bredacted/);
  });

  it('replays with the sandbox key in the same place the client put its own', async () => {
    const log = (await call(proxied.url, 'GET', '/__sandbox/requests?limit=100', null)).json.data as { requestId: string; path: string; status: number }[];
    const replayed = log.find((r) => r.path.includes('api_key='))!;
    expect(replayed.status).toBe(401); // the sandbox reads only Authorization, as the target does
    const detail = (await call(proxied.url, 'GET', `/__sandbox/requests/${replayed.requestId}`, null)).json.data as {
      detail: { request: { headers: Record<string, string> } };
    };
    expect(detail.detail.request.headers['x-api-key']).toMatch(/^\[redacted workspace key, \d+ chars\]$/);
  });
});

/** Every store and endpoint the proxy writes, as text. */
async function everythingKept(): Promise<Record<string, string>> {
  const text = async (path: string) => (await call(proxied.url, 'GET', path, null)).bytes.toString();
  const report = JSON.parse(await text('/__sandbox/parity')) as { data: Parameters<typeof parityJunit>[0] & { differences: { requestId: string }[] } };
  const examples = await Promise.all(
    [...new Set(report.data.differences.map((d) => d.requestId))].map((id) => text(`/__sandbox/parity/examples/${encodeURIComponent(id)}`)),
  );
  const log = JSON.parse(await text('/__sandbox/requests?limit=1000')) as { data: { requestId: string }[] };
  const details = await Promise.all(log.data.map((r) => text(`/__sandbox/requests/${r.requestId}`)));
  await proxied.proxy!.stop(); // flushes --record
  const recorded = readdirSync(record).map((f) => readFileSync(join(record, f), 'utf8'));

  const mcp = new Client({ name: 'secrets-scan', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(new ControlClient({ url: proxied.url })).connect(serverSide);
  await mcp.connect(clientSide);
  const tool = async (name: string, args: Record<string, unknown> = {}) => JSON.stringify(await mcp.callTool({ name, arguments: args }));
  const mcpAnswers = [
    await tool('list_requests', { limit: 100 }),
    await tool('run_report'),
    await tool('list_workspaces'),
    ...(await Promise.all(log.data.map((r) => tool('explain_request', { requestId: r.requestId })))),
  ];
  await mcp.close();

  return {
    report: JSON.stringify(report),
    markdown: parityMarkdown(report.data),
    junit: parityJunit(report.data),
    examples: examples.join('\n'),
    requestLog: [JSON.stringify(log), ...details].join('\n'),
    stream: stream.text,
    runReport: await text('/__sandbox/report'),
    record: recorded.join('\n'),
    records: JSON.stringify(proxied.store.exportCollections()),
    mcp: mcpAnswers.join('\n'),
  };
}
