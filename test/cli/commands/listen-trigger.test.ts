import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../../src/control/client.ts';
import { requestFilter } from '../../../src/cli/logs.ts';
import { parseAssignments } from '../../../src/cli/trigger.ts';
import { runCli, waitForStderr, waitForStdout } from '../../helpers/cli.ts';
import { KEYS } from '../../helpers/sandbox.ts';
import { expectOneLineFailure, json, useSandbox } from './harness.ts';

/** `listen`, `trigger`, `events resend` and `logs` behave as Stripe CLI users expect. */
const t = useSandbox();
let receiver: Server;
let hookUrl = '';
beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(() => receiver.close());

const client = () => new ControlClient({ url: t.sandbox.url });
/** listen's default workspace: the sandbox-mode one, the README key's */
const listenWorkspace = async () => (await client().workspaces()).find((w) => w.mode === 'sandbox')!;
async function subscriptionTo(url: string) {
  const workspace = await listenWorkspace();
  return client().findSubscription({ workspaceId: workspace.id, url });
}

describe('sandbox listen', () => {
  it('--print-secret changes nothing: an existing subscription keeps its events and state', async () => {
    const workspace = await listenWorkspace();
    const url = 'http://127.0.0.1:9/print-secret';
    const { secret } = await client().ensureSubscription({ workspaceId: workspace.id, url, events: ['booking.created'] });
    const r = await t.cli(['listen', '--forward-to', url, '--print-secret']);
    expect(r.stdout.trim()).toBe(secret);
    const after = await subscriptionTo(url);
    expect(after.subscription.events).toEqual(['booking.created']);
    expect(after.subscription.active).toBe(true);
  });

  it('--print-secret with no subscription yet creates one paused, and listen then uses that secret', async () => {
    const url = 'http://127.0.0.1:9/first';
    const r = await t.cli(['listen', '--forward-to', url, '--print-secret']);
    const found = await subscriptionTo(url);
    expect(found.secret).toBe(r.stdout.trim());
    expect(found.subscription.active).toBe(false);
  });

  it('--json prints one JSON line per delivery, and Ctrl+C pauses the subscription', async () => {
    const run = runCli(['listen', '--forward-to', hookUrl, '--json', '--url', t.sandbox.url]);
    await waitForStderr(run, 'Forwarding');
    expect((await subscriptionTo(hookUrl)).subscription.active).toBe(true);
    expect((await t.cli(['trigger', 'booking.created', '--json'])).code).toBe(0);
    await waitForStdout(run, '\n');
    const line = JSON.parse(run.output().stdout.split('\n')[0]!);
    expect(line).toMatchObject({ eventType: 'booking.created', attempt: 1, trigger: 'initial', status: 'succeeded', responseStatus: 200 });
    expect(typeof line.deliveryId).toBe('string');
    run.child.kill('SIGINT');
    const exit = await run.exit;
    expect(exit.code).toBe(0);
    expect((await subscriptionTo(hookUrl)).subscription.active).toBe(false);
  });
});

describe('sandbox trigger --override / --add', () => {
  it('replaces and adds fields of the generated data by dotted path', async () => {
    const r = await t.cli([
      'trigger',
      'booking.created',
      '--json',
      '--override',
      'status=cancelled',
      '--add',
      'metadata.source=cli',
      '--add',
      'metadata.count=3',
    ]);
    expect(r.code).toBe(0);
    const { event } = json<{ event: { data: Record<string, any> } }>(r);
    expect(event.data.status).toBe('cancelled');
    expect(event.data.metadata).toMatchObject({ source: 'cli', count: 3 });
  });

  it('an override of a field the data lacks is one line listing the fields it has', async () => {
    const line = expectOneLineFailure(await t.cli(['trigger', 'booking.created', '--override', 'stauts=x']));
    expect(line).toMatch(/--override stauts: the booking\.created data has no field "stauts" \(it has: .*status.*\); use --add/);
    expect(expectOneLineFailure(await t.cli(['trigger', 'booking.created', '--add', 'status=x']))).toMatch(/already has "status"; use --override/);
    expect(expectOneLineFailure(await t.cli(['trigger', 'booking.created', '--override', 'novalue']))).toMatch(/--override takes key=value/);
  });

  it('parses values as JSON when they are JSON, else as strings', () => {
    expect(parseAssignments('--add', ['a=1', 'b=true', 'c=hello', 'd={"x":1}', 'e=a=b'])).toEqual({ a: 1, b: true, c: 'hello', d: { x: 1 }, e: 'a=b' });
  });
});

describe('sandbox events resend', () => {
  it('replays a delivery with the same id, and an unknown id is one line', async () => {
    const workspace = (await client().workspaces())[0]!;
    await client().ensureSubscription({ workspaceId: workspace.id, url: `${hookUrl}?resend`, events: ['product.updated'] });
    const { deliveryIds } = await client().emitEvent({ workspaceId: workspace.id, type: 'product.updated' });
    const r = await t.cli(['events', 'resend', deliveryIds[0]!, '--json']);
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({ id: deliveryIds[0] });
    expect(json<{ attempts: { trigger: string }[] }>(r).attempts.at(-1)!.trigger).toBe('replay');
    expect(expectOneLineFailure(await t.cli(['events', 'resend', 'dlv_nope']))).toMatch(/not found/i);
  });
});

describe('sandbox logs filters', () => {
  it('--method, --status and --path narrow the requests', async () => {
    await t.api('GET', '/v1/products?limit=1', KEYS.liveFull);
    const missing = (await t.api('GET', '/v1/products/prod_missing', KEYS.liveFull)).status;
    expect(missing).toBeGreaterThanOrEqual(400);
    await t.api('POST', '/v1/forms', KEYS.liveRead, { name: 'x', fields: [] });
    const lines = async (args: string[]) =>
      (await t.cli(['logs', '--json', ...args])).stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { method: string; path: string; status: number });
    expect((await lines(['--status', String(missing)])).map((e) => e.path)).toEqual(['/v1/products/prod_missing']);
    expect((await lines(['--method', 'post'])).every((e) => e.method === 'POST')).toBe(true);
    expect((await lines(['--status', '4xx', '--path', '/v1/products/*'])).map((e) => e.status)).toEqual([missing]);
    expect(expectOneLineFailure(await t.cli(['logs', '--status', 'teapot']))).toMatch(/--status takes a status or a class/);
  });

  it('matches paths by text or by glob', () => {
    const entry = {
      requestId: 'r',
      method: 'GET',
      path: '/v1/bookings/book_1/items?x=1',
      status: 200,
      latencyMs: 1,
      workspaceId: null,
      keyPrefix: null,
      at: '',
    };
    expect(requestFilter({ path: 'bookings' })(entry)).toBe(true);
    expect(requestFilter({ path: '/v1/bookings/*' })(entry)).toBe(false);
    expect(requestFilter({ path: '/v1/bookings/**' })(entry)).toBe(true);
    expect(requestFilter({ status: '2' })(entry)).toBe(true);
    expect(requestFilter({ status: '201' })(entry)).toBe(false);
  });
});
