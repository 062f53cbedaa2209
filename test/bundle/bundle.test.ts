import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleBytes, collectBundle } from '../../src/bundle/collect.ts';
import { BundleError, decodeBundle, encodeBundle, readBundleFile, writeBundleFile } from '../../src/bundle/file.ts';
import { harOf } from '../../src/bundle/har.ts';
import { openBundle, type OpenedBundle } from '../../src/bundle/open.ts';
import { BUNDLE_VERSION, type Bundle } from '../../src/bundle/schema.ts';
import { stateRows } from '../../src/bundle/state-export.ts';
import { GzipMembers } from '../../src/bundle/gzip-members.ts';
import { TABLE_ROWS } from '../../src/bundle/state-pieces.ts';
import { seedWorkspace } from '../../src/control/seed.ts';
import { emitDomainEvent } from '../../src/core/events.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { harProblems } from './har-schema.ts';

/**
 * The failure bundle (docs/cli.md, "The failure bundle"): what a run leaves is written whole,
 * secrets out, and served again read-only by `sandbox open`, every control route the inspector
 * reads answering as the run's sandbox did.
 */
const dir = mkdtempSync(join(tmpdir(), 'bundle-test-'));
const file = join(dir, 'b.json.gz');
const MISSING = 'book_00000000-0000-4000-8000-000000000000';
/** what a scan of the bundle must never find: the fixture keys whole, any key shape, a signing secret, the custom header's secret */
const SECRETS = [/tcs_(?:test|live)_[A-Za-z0-9_]{24,}/, /whsec_[A-Za-z0-9+/=_-]{16,}/, /org_[A-Za-z0-9]{8}_[A-Za-z0-9]{32}/, /sk_live_ABCDEFGHIJKLMNOP/];

let t: TestSandbox;
let bundle: Bundle;
let bytes: Buffer;
let subscriptionSecret: string;
/** a workspace created for a test worker (`exec --workers`), and a record written in it */
let worker: { id: string; subscriptionId: string };

beforeAll(async () => {
  t = await testSandbox();
  const ws = t.sandboxWorkspaceId;
  await t.request('GET', '/v1/products?limit=2', { key: KEYS.sandboxFull });
  await t.request('GET', `/v1/bookings/${MISSING}`, { key: KEYS.sandboxFull });
  const created = await t.request('POST', '/v1/webhooks/subscriptions', {
    key: KEYS.sandboxFull,
    body: { url: 'http://127.0.0.1:9/hook', events: ['booking.*'], headers: { 'X-Api-Key': 'sk_live_ABCDEFGHIJKLMNOP' } },
  });
  subscriptionSecret = created.json().data.secret;
  emitDomainEvent(t.sandbox.events, t.sandbox.clock, ws, 'booking.created', { id: 'book_x' });
  await t.sandbox.context.webhooks.idle(); // its first attempt fails (nothing listens on port 9): a retry is due later
  await t.request('POST', '/__sandbox/faults', { body: { path: '/v1/products', status: 503, times: 2 } });
  await t.request('POST', `/__sandbox/workspaces/${ws}/clock/advance`, { body: { ms: 60_000 } });
  const workerSpace = await t.sandbox.createWorkspace({ template: ws, name: 'worker 1' });
  const written = await t.request('POST', '/v1/webhooks/subscriptions', {
    key: workerSpace.keys[0]!.key,
    body: { url: 'http://127.0.0.1:9/worker', events: ['booking.*'] },
  });
  worker = { id: workerSpace.id, subscriptionId: written.json().data.id };
  bundle = collectBundle(t.sandbox.context, { run: { command: ['npx', 'vitest', 'run'], exitCode: 1 }, url: 'http://127.0.0.1:4010' });
  bytes = await encodeBundle(bundle);
  await writeBundleFile(file, bytes);
});
afterAll(async () => {
  await t.sandbox.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('the bundle a run leaves', () => {
  it('is gzip-compressed JSON with a format and a version, read back as it was written', async () => {
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    const read = await readBundleFile(file);
    expect(read.format).toBe('travel-commerce-sandbox/bundle');
    expect(read.bundleVersion).toBe(BUNDLE_VERSION);
    expect(read.run).toEqual({ command: ['npx', 'vitest', 'run'], exitCode: 1 });
    expect(read).toEqual(JSON.parse(JSON.stringify(bundle)));
  });

  it('holds each request with its status and reason, in the order they came', () => {
    const paths = bundle.requests.entries.map((e) => `${e.method} ${e.path.split('?')[0]} ${e.status}`);
    expect(paths).toEqual([
      'GET /v1/products 200',
      `GET /v1/bookings/${MISSING} 404`,
      'POST /v1/webhooks/subscriptions 201',
      'POST /v1/webhooks/subscriptions 201',
    ]);
    expect(bundle.requests.entries[1]!.reason).toMatch(/^NOT_FOUND /);
    expect(bundle.requests.entries[1]!.detail?.response.body).toContain('not found');
    expect(bundle.requests).toMatchObject({ seen: 4, wrapped: false, withDetail: 4, capacity: 1000 });
  });

  it('holds the final state whole: its rows come back as the store has them, but for the secrets', () => {
    const rows = stateRows(bundle.state);
    const stored = t.sandbox.store.exportCollections();
    expect(Object.keys(rows).sort()).toEqual(Object.keys(stored).sort());
    expect(rows.bookings).toEqual(stored.bookings);
    expect(rows.apiKeys).toEqual(stored.apiKeys); // key hashes, not keys: the fixture keys still call a sandbox started on it
    // the worker's workspace: a view over its template's base, with secrets of its own, redacted too
    const [overlay] = Object.values(rows.workspaceOverlays!._global!);
    expect(Object.values(overlay!.secrets as object)).toEqual([expect.stringMatching(/^\[redacted webhook secret/)]);
    expect({ ...overlay, secrets: null }).toEqual({ ...Object.values(stored.workspaceOverlays!._global!)[0], secrets: null });
    const [subscription] = Object.values(rows.webhookSubscriptions![t.sandboxWorkspaceId]!).filter((s) => s.url === 'http://127.0.0.1:9/hook');
    expect(subscription!.secret).toMatch(/^\[redacted webhook secret, \d+ chars\]$/);
    expect(subscription!.headers).toEqual({ 'X-Api-Key': expect.stringMatching(/^\[redacted /) });
    const deliveries = Object.values(rows.webhookDeliveries![t.sandboxWorkspaceId]!);
    // the first attempt failed (nothing listens on port 9), and so did the retry the workspace's minute ran
    expect(deliveries.map((d) => [d.eventType, d.status, (d.attempts as unknown[]).length])).toEqual([['booking.created', 'pending', 2]]);
  });

  it('holds the clocks, the fault rules and the report', () => {
    expect(bundle.clock).toMatchObject({
      mode: 'manual',
      nowMs: t.sandbox.clock.nowIn(null),
      workspaces: [{ workspaceId: t.sandboxWorkspaceId, offsetMs: 60_000 }],
    });
    expect(bundle.faults).toMatchObject([{ path: '/v1/products', status: 503, remaining: 2 }]);
    expect(bundle.report.requests).toBe(4);
    expect(bundle.report.refusals.map((r) => r.code)).toEqual(['NOT_FOUND']);
  });

  it('carries no key, no signing secret and no secret of a custom header, anywhere', () => {
    const text = gunzipSync(bytes).toString('utf8');
    expect(text).not.toContain(subscriptionSecret);
    for (const secret of SECRETS) expect(text).not.toMatch(secret);
    // the masked Authorization of the log still says which key was used
    expect(bundle.requests.entries[0]!.detail?.request.headers.authorization).toMatch(/^Bearer tcs_test_borealis\w*…$/);
  });

  it('is written as exec writes it, a table at a time, to the same bundle', async () => {
    const streamed = await decodeBundle(
      await bundleBytes(t.sandbox.context, { run: { command: ['npx', 'vitest', 'run'], exitCode: 1 }, url: 'http://127.0.0.1:4010' }),
      'b',
    );
    expect({ ...streamed, savedAt: null }).toEqual({ ...bundle, savedAt: null });
  });

  it('keeps a large partition as tables of a bounded size, a repeated value once, and reads its rows back as they were', async () => {
    const large = await testSandbox();
    try {
      const ws = large.sandboxWorkspaceId;
      await seedWorkspace(large.sandbox.context, { workspaceId: ws, bookings: TABLE_ROWS + 500 });
      expect(Array.isArray(large.sandbox.store.scan('passengers', ws))).toBe(false); // packed: read from its deflated pages
      const [first] = large.sandbox.store.list<{ id: string }>('bookings', ws);
      // a secret in a value that repeats, and in one that does not: both redacted
      await large.request('PATCH', `/v1/bookings/${first!.id}`, { key: KEYS.sandboxFull, body: { notes: 'paid with tcs_test_0123456789abcdef0123456789' } });
      const decoded = await decodeBundle(await bundleBytes(large.sandbox.context), 'large');
      const tables = decoded.state.collections.bookings![ws]!;
      expect(tables.map((table) => table.rows)).toEqual([TABLE_ROWS, large.sandbox.store.count('bookings', ws) - TABLE_ROWS]);
      expect(tables[0]!.dictionaries?.status).toEqual(expect.arrayContaining(['confirmed']));
      expect(tables[0]!.columns.status!.every((code) => typeof code === 'number')).toBe(true);
      const stored = large.sandbox.store.exportCollections();
      const rows = stateRows(decoded.state);
      expect(rows.passengers).toEqual(stored.passengers);
      const redacted = rows.bookings![ws]![first!.id]!;
      expect(redacted.notes).toMatch(/^paid with \[redacted workspace key, \d+ chars\]$/);
      expect({ ...rows.bookings![ws]!, [first!.id]: null }).toEqual({ ...stored.bookings![ws]!, [first!.id]: null });
    } finally {
      await large.sandbox.stop();
    }
  });

  it('opens a bundle written before tables were cut: a partition of one table', async () => {
    const old = structuredClone(bundle) as unknown as { state: { collections: Record<string, Record<string, unknown>> } };
    for (const partitions of Object.values(old.state.collections)) {
      for (const [partition, tables] of Object.entries(partitions)) partitions[partition] = (tables as unknown[])[0];
    }
    const read = await decodeBundle(Buffer.from(JSON.stringify(old)), 'old.json');
    expect(stateRows(read.state)).toEqual(stateRows(bundle.state));
  });

  it('compresses pieces of any length, one longer than its buffers and characters past Latin-1 included', async () => {
    const members = new GzipMembers();
    const pieces = ['{"a":', JSON.stringify('é€😀'.repeat(700_000)), ',"b":', JSON.stringify('x'.repeat(3_000_000)), '}'];
    for (const piece of pieces) if (members.write(piece)) await members.room();
    const gzipped = await members.end();
    expect(gzipped.length).toBeGreaterThan(1);
    expect(gunzipSync(Buffer.concat(gzipped)).toString('utf8')).toBe(pieces.join(''));
  });

  it('says when the request log wrapped', async () => {
    const small = await testSandbox();
    const log = small.sandbox.context.requestLog as unknown as { capacity: number };
    log.capacity = 3; // the bound is 1,000; three make the same point faster
    for (let i = 0; i < 7; i++) await small.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
    const wrapped = collectBundle(small.sandbox.context).requests;
    await small.sandbox.stop();
    expect(wrapped).toMatchObject({ seen: 7, wrapped: true, capacity: 3 });
    expect(wrapped.entries).toHaveLength(3);
  });

  it('refuses, in one line, what is not a bundle or is newer than this sandbox reads', async () => {
    await expect(decodeBundle(Buffer.from('{"hello":1}'), 'x.json')).rejects.toThrow(/x\.json is not a sandbox bundle: it has no "format"/);
    await expect(decodeBundle(Buffer.from('not json'), 'x.gz')).rejects.toThrow(BundleError);
    const newer = { ...bundle, bundleVersion: BUNDLE_VERSION + 1 };
    await expect(decodeBundle(Buffer.from(JSON.stringify(newer)), 'n.json.gz')).rejects.toThrow(/version 2; this sandbox reads up to version 1/);
    await expect(readBundleFile(join(dir, 'none.json.gz'))).rejects.toThrow(/cannot read the bundle .*: no such file/);
  });

  it("exports its requests as HAR 1.2, each with its reason, that the spec's schema accepts", () => {
    const har = harOf(bundle.requests.entries, { name: 'travel-commerce-sandbox', version: '0.0.0' }, 'http://127.0.0.1:4010');
    expect(harProblems(har)).toEqual([]);
    expect(har.log.entries.map((e) => [e.request.method, e.request.url.split('?')[0], e.response.status])).toEqual([
      ['GET', 'http://127.0.0.1:4010/v1/products', 200],
      ['GET', `http://127.0.0.1:4010/v1/bookings/${MISSING}`, 404],
      ['POST', 'http://127.0.0.1:4010/v1/webhooks/subscriptions', 201],
      ['POST', 'http://127.0.0.1:4010/v1/webhooks/subscriptions', 201],
    ]);
    expect(har.log.entries[0]!.request.queryString).toEqual([{ name: 'limit', value: '2' }]);
    expect(har.log.entries[1]!._reason).toMatch(/^NOT_FOUND /);
    expect(har.log.entries[2]!.request.postData?.text).toContain('http://127.0.0.1:9/hook');
    const text = JSON.stringify(har);
    for (const secret of SECRETS) expect(text).not.toMatch(secret);
    // the schema can fail: a HAR without its version is refused
    expect(harProblems({ log: { creator: { name: 'x', version: '1' }, entries: [] } })).not.toEqual([]);
  });
});

describe('sandbox open: the bundle served read-only', () => {
  let opened: OpenedBundle;
  const control = (path: string, init?: RequestInit) => fetch(`${opened.sandbox.controlUrl}${path}`, init);
  const data = async (path: string) => ((await (await control(path)).json()) as { data: any }).data; // eslint-disable-line @typescript-eslint/no-explicit-any

  beforeAll(async () => {
    opened = await openBundle(file);
  });
  afterAll(() => opened.sandbox.stop());

  it("answers the run's requests, newest first, each with its reason and its headers and bodies", async () => {
    const requests = await data('/requests?limit=1000');
    expect(requests.map((e: { status: number }) => e.status)).toEqual([201, 201, 404, 200]);
    expect(requests[2].reason).toBe(bundle.requests.entries[1]!.reason);
    const one = await data(`/requests/${bundle.requests.entries[1]!.requestId}`);
    expect(one.detail.response.body).toContain('not found');
  });

  it("answers the run's records, deliveries with their attempts, clocks, fault rules and report", async () => {
    const ws = t.sandboxWorkspaceId;
    const booking = Object.keys(stateRows(bundle.state).bookings![ws]!)[0]!;
    expect((await data(`/workspaces/${ws}/collections/bookings/${booking}`)).record.id).toBe(booking);
    const deliveries = await data(`/deliveries?workspaceId=${ws}`);
    expect(deliveries.map((d: { status: string; attempts: unknown[] }) => [d.status, d.attempts.length])).toEqual([['pending', 2]]);
    expect((await data('/clock')).nowMs).toBe(bundle.clock.nowMs);
    expect((await data(`/workspaces/${ws}/clock`)).offsetMs).toBe(60_000);
    expect(await data('/faults')).toEqual(bundle.faults);
    expect(await data('/report')).toEqual(bundle.report);
  });

  it("answers a test worker's created workspace and what was written in it", async () => {
    const workspaces = await data('/workspaces');
    expect(workspaces.map((w: { name: string }) => w.name)).toContain('worker 1');
    const subscription = await data(`/workspaces/${worker.id}/collections/webhookSubscriptions/${worker.subscriptionId}`);
    expect(subscription.record.url).toBe('http://127.0.0.1:9/worker');
    // signing secrets, redacted in the file, are fresh ones here: of the right form, not the run's
    for (const [workspaceId, url] of [
      [worker.id, 'http://127.0.0.1:9/worker'],
      [t.sandboxWorkspaceId, 'http://127.0.0.1:9/hook'],
    ]) {
      const { secret } = await data(`/webhook-subscriptions/by-url?workspaceId=${workspaceId}&url=${encodeURIComponent(url!)}`);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(secret).not.toBe(subscriptionSecret);
    }
  });

  it('refuses a control-plane write and any /v1 request, saying the bundle is read-only; the log stays the run’s', async () => {
    const reset = await control('/reset', { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(reset.status).toBe(403);
    expect(await reset.json()).toMatchObject({ code: 'READ_ONLY', error: expect.stringContaining(`serves the bundle ${file}, read-only`) });
    expect(reset.headers.get('x-sandbox-reason')).toMatch(/^READ_ONLY .*sandbox start --from-bundle/);
    const api = await fetch(`${opened.sandbox.url}/v1/products`, { headers: { authorization: `Bearer ${KEYS.sandboxFull}` } });
    expect(api.status).toBe(403);
    expect(((await api.json()) as { code: string }).code).toBe('READ_ONLY');
    expect(await data('/requests?limit=1000')).toHaveLength(4);
    expect((await data('/report')).requests).toBe(4);
  });

  it('opens a bundle one of whose rows this sandbox refuses: that row is left out, and said', async () => {
    const odd = structuredClone(bundle);
    const tables = odd.state.collections.bookings![t.sandboxWorkspaceId]!;
    const table = tables[0]!;
    const refused = String(table.columns.id![0]);
    table.columns.status![0] = 'no such status';
    const oddFile = join(dir, 'odd.json.gz');
    await writeBundleFile(oddFile, await encodeBundle(odd));
    const other = await openBundle(oddFile);
    try {
      expect(other.leftOut).toEqual([expect.stringMatching(new RegExp(`^bookings row "${refused}" \\(workspace ${t.sandboxWorkspaceId}\\): status`))]);
      const bookings = `${other.sandbox.controlUrl}/workspaces/${t.sandboxWorkspaceId}/collections/bookings`;
      expect(((await (await fetch(`${bookings}?limit=1`)).json()) as { data: { total: number } }).data.total).toBe(
        tables.reduce((n, { rows }) => n + rows, 0) - 1,
      );
      expect((await fetch(`${bookings}/${refused}`)).status).toBe(404);
    } finally {
      await other.sandbox.stop();
    }
  });

  it('opens nothing that is not a bundle', async () => {
    await expect(openBundle(join(dir, 'none.json.gz'))).rejects.toThrow(/no such file/);
  });
});
