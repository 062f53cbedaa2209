import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { ControlClient } from '../../src/control/client.ts';
import { BIN, runCli } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { ensureBundle } from '../setup/bundle.ts';

/**
 * `sandbox mcp` as an assistant runs it, the bin in its own process spoken to by
 * the SDK's own Client over stdio, attached to a real sandbox on a real socket (in memory,
 * on a manual clock, so advancing it is what fires the webhook retry).
 */
let sandbox: Sandbox;
let mcp: Client;
let stderr = '';
let receiver: Server;
let receiverUrl = '';
const received: string[] = [];
let answer = 500;

/** A fixture departure of the Borealis (sandbox) workspace that takes one adult (test/journeys). */
const DEPARTURE = 'dept_5b78b736-b475-4c84-867e-1b9b3be56fac';
const BOREALIS = 'Borealis Adventures (sandbox)';

beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      received.push(body);
      res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  // the bundle an installed package runs, rebuilt first when older than src/ (runCli does the
  // same); through tsx over the sources, each of this file's 4 processes started several times slower
  ensureBundle();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--url', sandbox.url],
    env: { ...process.env, NO_COLOR: '1' } as Record<string, string>,
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  mcp = new Client({ name: 'sandbox-test', version: '1.0.0' });
  await mcp.connect(transport);
}, 90_000);
afterAll(async () => {
  await mcp?.close();
  await sandbox?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

type ToolAnswer = { isError?: boolean; content: { type: string; text: string }[] };
async function call(name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await mcp.callTool({ name, arguments: args })) as ToolAnswer;
}
/** A tool's JSON answer; fails with the tool's error text when it answered an error. */
async function json<T = any>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  const answer = await call(name, args);
  expect(answer.isError, answer.content[0]?.text).toBeFalsy();
  return JSON.parse(answer.content[0]!.text) as T;
}
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (const deadline = Date.now() + 20_000; ; await new Promise((resolve) => setTimeout(resolve, 50))) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`never: ${what}; last ${JSON.stringify(value).slice(0, 500)}`);
  }
}
async function book(): Promise<string> {
  const res = await fetch(`${sandbox.url}/v1/bookings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.sandboxFull}`, 'content-type': 'application/json' },
    body: JSON.stringify({ departureId: DEPARTURE, adults: 1 }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

describe('sandbox mcp', () => {
  it('lists its tools, and each that changes state says so', async () => {
    const { tools } = await mcp.listTools();
    const names = tools.map((t) => t.name);
    for (const name of [
      'list_requests',
      'explain_request',
      'list_collections',
      'query_records',
      'get_record',
      'advance_clock',
      'set_clock',
      'reset',
      'snapshot',
      'restore',
      'create_workspace',
      'create_key',
      'revoke_key',
      'add_fault',
      'clear_faults',
      'trigger_event',
      'list_deliveries',
      'replay_delivery',
      'run_report',
      'list_scenarios',
      'run_scenario',
    ])
      expect(names).toContain(name);
    const changing = tools.filter((t) => t.description?.includes('Changes the sandbox state.')).map((t) => t.name);
    expect(changing).toEqual(
      expect.arrayContaining([
        'advance_clock',
        'reset',
        'restore',
        'create_key',
        'revoke_key',
        'add_fault',
        'trigger_event',
        'replay_delivery',
        'run_scenario',
      ]),
    );
    expect(changing).not.toContain('list_requests');
    expect(tools.find((t) => t.name === 'reset')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const { resources } = await mcp.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['sandbox://openapi/operations', 'sandbox://reasons', 'sandbox://docs/divergences.md']);
    const operations = await mcp.readResource({ uri: 'sandbox://openapi/operations' });
    expect((operations.contents[0] as { text: string }).text).toMatch(/^POST \/v1\/bookings {2}\w+/m);
  });

  it('explains why a request was refused: reason, captured headers, and a curl without the key', async () => {
    const res = await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: 'Bearer tcs_test_nobody_0000000000000000000000001' } });
    expect(res.status).toBe(401);
    const requestId = res.headers.get('x-request-id')!;
    const listed = await json<{ requestId: string; reason?: string }[]>('list_requests', { status: '4xx', path: '/v1/products' });
    expect(listed[0]).toMatchObject({ requestId, reason: expect.stringMatching(/^UNKNOWN_KEY /) });

    const explained = await json('explain_request', { requestId });
    expect(explained).toMatchObject({ status: 401, reason: expect.stringMatching(/^UNKNOWN_KEY /), path: '/v1/products?limit=1' });
    expect(explained.captured.request.headers.authorization).not.toContain('tcs_test_nobody_0000000000000000000000001');
    expect(explained.curl).toContain(`curl -X GET '${sandbox.url}/v1/products?limit=1'`);
    expect(explained.curl).toContain('$SANDBOX_KEY');
    // no id: the newest refused request
    expect(await json('explain_request')).toMatchObject({ requestId });
  });

  it('finds a booking just made with get_record and query_records', async () => {
    const id = await book();
    const record = await json('get_record', { collection: 'bookings', id, workspace: BOREALIS });
    expect(JSON.stringify(record)).toContain(id);
    expect(JSON.stringify(record)).toContain(DEPARTURE);
    const page = await json('query_records', { collection: 'bookings', workspace: 'borealis', order: 'newest', limit: 5 });
    expect(page.rows.map((r: { id: string }) => r.id)).toContain(id);
  });

  it('advance_clock fires a due webhook retry, and list_deliveries shows it delivered', async () => {
    const workspace = (await new ControlClient({ url: sandbox.url }).workspaces()).find((w) => w.name === BOREALIS)!;
    const { subscription } = await new ControlClient({ url: sandbox.url }).ensureSubscription({
      workspaceId: workspace.id,
      url: receiverUrl,
      events: ['booking.created'],
      maxRetries: 5,
      active: true,
    });
    answer = 500;
    const id = await book();
    const deliveries = () =>
      json<{ id: string; status: string; attempts: unknown[] }[]>('list_deliveries', { subscriptionId: subscription.id, workspace: BOREALIS });
    const [failed] = await until(deliveries, (list) => list.length > 0 && list[0]!.attempts.length === 1, 'the first attempt, refused by the receiver');
    expect(failed).toMatchObject({ status: 'pending' });
    expect(received.some((body) => body.includes(id))).toBe(true);

    answer = 200;
    await json('advance_clock', { duration: '1h' });
    const [retried] = await until(deliveries, (list) => list[0]!.status !== 'pending', 'the retry the clock made due');
    expect(retried).toMatchObject({ id: failed!.id, status: 'succeeded' });
    expect(retried!.attempts).toHaveLength(2);
    // the listing never shows the subscription's signing secret
    expect(JSON.stringify(await deliveries())).not.toMatch(/whsec_/);
  });

  it("works in the sandbox's default workspace without a workspace argument: Borealis, the README key's", async () => {
    const listed = await json<{ id: string; name: string; default: boolean }[]>('list_workspaces');
    expect(listed.filter((w) => w.default).map((w) => w.name)).toEqual([BOREALIS]);
    const made = await json('create_key', { name: 'assistant' });
    expect(made).toMatchObject({ workspaceId: listed.find((w) => w.default)!.id, key: expect.stringMatching(/^tcs_test_/) });
    const id = await book();
    expect((await json('query_records', { collection: 'bookings', order: 'newest', limit: 5 })).rows.map((r: { id: string }) => r.id)).toContain(id);
    expect(JSON.stringify(await json('get_record', { collection: 'bookings', id }))).toContain(DEPARTURE);
  });

  it('add_fault takes workspace, by name as everywhere; an argument a tool does not take is an error naming it', async () => {
    const control = new ControlClient({ url: sandbox.url });
    const aurora = (await control.workspaces()).find((w) => w.name === 'Aurora Tours')!;
    const rule = await json<{ id: string }>('add_fault', { workspace: 'aurora', path: '/v1/forms', status: 503, times: 1 });
    expect((await control.faults()).find((f) => f.id === rule.id)).toMatchObject({ workspaceId: aurora.id, status: 503 });
    await json('clear_faults');
    expect(await call('add_fault', { workspaceId: aurora.id, status: 503 })).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/add_fault takes no "workspaceId"; its arguments: path, method, workspace/) }],
    });
    expect(await control.faults()).toEqual([]); // refused, not added for every workspace
    expect((await call('list_workspaces', { verbose: true })).content[0]!.text).toMatch(/list_workspaces takes no "verbose"; it takes no arguments/);
  });

  it('add_fault with target delivery duplicates the next delivery: the receiver gets it twice, with one webhook-id', async () => {
    const control = new ControlClient({ url: sandbox.url });
    const workspaceId = (await control.workspaces()).find((w) => w.name === BOREALIS)!.id;
    await control.ensureSubscription({ workspaceId, url: receiverUrl, events: ['customer.created'], maxRetries: 0, active: true });
    const rule = await json<{ id: string; target: string }>('add_fault', { target: 'delivery', event: 'customer.created', duplicate: true });
    expect(rule.target).toBe('delivery');
    answer = 200;
    const before = received.length;
    const { event } = await control.emitEvent({ workspaceId, type: 'customer.created' });
    const deadline = Date.now() + 10_000;
    while (received.length < before + 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(received.slice(before).map((body) => (JSON.parse(body) as { id: string }).id)).toEqual([event.id, event.id]);
    const deliveries = await json<{ fault: { action: string; summary: string } | null }[]>('list_deliveries', { eventType: 'customer.created' });
    expect(deliveries.map((d) => d.fault?.summary)).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^duplicate of dlv_\\S+, made by ${rule.id}$`))]),
    );
    answer = 500;
  });

  it('advance_clock toNext says what ran, where the clock is now and what is due next, as `clock advance --to-next` does', async () => {
    const control = new ControlClient({ url: sandbox.url });
    const workspaceId = (await control.workspaces()).find((w) => w.name === BOREALIS)!.id;
    const { subscription } = await control.ensureSubscription({ workspaceId, url: receiverUrl, events: ['booking.created'], maxRetries: 5, active: true });
    answer = 500;
    await book();
    const deliveries = () => control.deliveries({ subscriptionId: subscription.id, limit: 5 });
    // the clock is frozen: this delivery and the last test's share their time, so look for it by status
    const refused = (list: Awaited<ReturnType<typeof deliveries>>) => list.find((d) => d.status === 'pending' && d.attempts.length === 1);
    const pending = refused(await until(deliveries, (list) => refused(list) !== undefined, 'the first attempt, refused'));
    const moved = await json('advance_clock', { toNext: true, workspace: 'borealis' });
    const label = `webhook retry ${pending!.id} (booking.created)`;
    expect(moved.ran.map((r: { label: string }) => r.label)).toContain(label);
    expect(moved.next).toMatchObject({ label, at: expect.any(String) }); // the receiver refused again: the next retry
    const lines = (moved.summary as string).split('\n');
    expect(lines[0]).toMatch(new RegExp(`^Advanced ${BOREALIS.replace(/[()]/g, '\\$&')}'s clock .+ to ${moved.now}; ran ${moved.ran.length} timers?:$`));
    expect(lines).toContain(`  ${moved.ran[0].at}  ${moved.ran[0].label}`);
    expect(lines.at(-1)).toBe(`Next: ${label} at ${moved.next.at}`);
  });

  it('lists the shipped scenarios and runs one against this sandbox', async () => {
    const scenarios = await json<{ name: string; steps: number }[]>('list_scenarios');
    expect(scenarios.map((s) => s.name)).toContain('key-revocation');
    const result = await json('run_scenario', { name: 'key-revocation' });
    expect(result).toMatchObject({ name: 'key-revocation', passed: true, notReached: 0 });
    expect(result.steps.length).toBe(scenarios.find((s) => s.name === 'key-revocation')!.steps);
    const unknown = await call('run_scenario', { name: 'no-such-scenario' });
    expect(unknown.isError).toBe(true);
  });

  it('answers bad arguments with an MCP error and keeps running', async () => {
    const wrongType = await mcp
      .callTool({ name: 'get_record', arguments: { collection: 5 } })
      .catch((err: Error) => ({ isError: true, content: [{ type: 'text', text: err.message }] }));
    expect(wrongType.isError).toBe(true);
    const missing = await call('get_record', { collection: 'bookings', id: 'bkg_nope', workspace: BOREALIS });
    expect(missing.isError).toBe(true);
    expect(missing.content[0]!.text).toMatch(/not found|no /i);
    const badDuration = await call('advance_clock', { duration: 'soon' });
    expect(badDuration.isError).toBe(true);
    const noWorkspace = await call('list_collections', { workspace: 'Atlantis' });
    expect(noWorkspace.content[0]!.text).toMatch(/no workspace "Atlantis"/);
    // still serving
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(15);
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });
});

describe('sandbox mcp, starting and refusing', () => {
  it('--start runs a sandbox of its own in memory, and says where on stderr only', { timeout: 90_000 }, async () => {
    let own = '';
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--start'],
      env: { ...process.env, SANDBOX_URL: '' } as Record<string, string>,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (own += chunk.toString()));
    const started = new Client({ name: 'sandbox-test', version: '1.0.0' });
    await started.connect(transport);
    try {
      const workspaces = JSON.parse(((await started.callTool({ name: 'list_workspaces', arguments: {} })) as ToolAnswer).content[0]!.text) as {
        name: string;
        keys: { keyPrefix: string; key?: string }[];
      }[];
      expect(workspaces.map((w) => w.name)).toContain(BOREALIS);
      // keys by prefix only: no whole key leaves the server unless a tool just made it
      expect(JSON.stringify(workspaces)).not.toContain(KEYS.sandboxFull);
      expect(workspaces.flatMap((w) => w.keys).every((k) => !('key' in k))).toBe(true);
      const url = /started a sandbox in memory at (http:\/\/127\.0\.0\.1:\d+)/.exec(own)?.[1];
      expect(url, own).toBeDefined();
      expect(url).not.toBe(sandbox.url);
    } finally {
      await started.close();
    }
  });

  it('refuses a sandbox off this machine, and names a sandbox that is not there, in one line', async () => {
    const remote = await runCli(['mcp', '--url', 'http://10.1.2.3:4010']).exit;
    expect(remote.code).toBe(1);
    expect(remote.stdout).toBe('');
    expect(remote.stderr).toBe('sandbox: sandbox mcp talks to a sandbox on this machine only (127.0.0.1, localhost, ::1), not http://10.1.2.3:4010\n');
    const absent = await runCli(['mcp', '--url', 'http://127.0.0.1:9']).exit;
    expect(absent.code).toBe(1);
    expect(absent.stdout).toBe('');
    expect(absent.stderr).toMatch(/^sandbox: no sandbox is running at http:\/\/127\.0\.0\.1:9 .*pass --url\n$/);
  }, 60_000);
});
