import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, waitForStdout } from '../../helpers/cli.ts';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { KEYS } from '../../helpers/sandbox.ts';
import { expectOneLineFailure, json, useSandbox } from './harness.ts';

const t = useSandbox();
const createForm = async (name: string): Promise<string> =>
  ((await (await t.api('POST', '/v1/forms', KEYS.liveFull, { name, fields: [] })).json()) as { id: string }).id;
const formStatus = async (id: string) => (await t.api('GET', `/v1/forms/${id}`, KEYS.liveFull)).status;

describe('sandbox snapshot and reset', () => {
  it('save, list and restore a named snapshot', async () => {
    expect((await t.cli(['snapshot', 'save', 'clean'])).stdout).toMatch(/^Saved snapshot clean \(/);
    const id = await createForm('After the snapshot');
    expect(json(await t.cli(['snapshot', 'list', '--json']))).toEqual([expect.objectContaining({ name: 'clean' })]);
    const restored = await t.cli(['snapshot', 'restore', 'clean']);
    expect(restored.stdout).toMatch(/^Restored snapshot clean in [\d.]+ ms/);
    expect(await formStatus(id)).toBe(404);
  });

  it('export writes a database file; import puts that state back; reset prints the ms it took', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'sbx-state-')), 'state.json');
    const exported = await t.cli(['snapshot', 'export', file]);
    expect(exported.code).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ schemaVersion: 1, collections: expect.any(Object) });
    const id = await createForm('After the export');
    const imported = await t.cli(['snapshot', 'import', file, '--json']);
    expect(json(imported)).toMatchObject({ imported: true });
    expect(await formStatus(id)).toBe(404);

    const reset = await t.cli(['reset']);
    expect(reset.stdout).toMatch(/^Reset to the fixtures in [\d.]+ ms/);
  });
});

describe('sandbox seed', () => {
  it("adds products and bookings to the sandbox's default workspace and answers counts", async () => {
    const ws = t.sandbox.defaultWorkspace!.id;
    const before = t.sandbox.store.list('products', ws).length;
    const r = await t.cli(['seed', '--products', '3', '--bookings', '15', '--seed', '9', '--json']);
    expect(r.code).toBe(0);
    const result = json(r);
    expect(result).toMatchObject({ workspaceId: ws, seed: 9, created: { products: 3 } });
    expect(result.created.bookings).toBeGreaterThan(0);
    expect(t.sandbox.store.list('products', ws).length).toBe(before + 3);
  });
});

describe('sandbox logs and otp', () => {
  it('logs --json prints one request per line, oldest first', async () => {
    await t.api('GET', '/v1/products?limit=1', KEYS.liveFull);
    await t.api('GET', '/v1/products?limit=2', KEYS.liveFull);
    const lines = (await t.cli(['logs', '--limit', '2', '--json'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.path)).toEqual(['/v1/products?limit=1', '/v1/products?limit=2']);
    expect(lines[0]).toMatchObject({ method: 'GET', status: 200, keyPrefix: KEYS.liveFull.slice(0, 17) }); // fixture prefixes grow until they tell a workspace's keys apart
  });

  it('logs --follow prints each new request as it happens and stops cleanly on Ctrl+C', async () => {
    const run = runCli(['logs', '--follow', '--limit', '1', '--url', t.sandbox.url]);
    await waitForStdout(run, '/v1/products?limit=2');
    await t.api('GET', '/v1/products?limit=7', KEYS.sandboxRead);
    await waitForStdout(run, '/v1/products?limit=7');
    run.child.kill('SIGINT');
    const { code, stdout } = await run.exit;
    expect(code).toBe(0);
    expect(stdout).toMatch(/GET\s+\/v1\/products\?limit=7\s+200\s+[\d.]+ms\s+tcs_test_boreali/);
  });

  it('otp shows the code the sandbox sent, and that code verifies', async () => {
    expect((await t.api('POST', '/v1/verify/email/start', KEYS.liveFull, { email: 'ada@example.com' })).status).toBe(200);
    const codes = json(await t.cli(['otp', 'ada@example.com', '--json']));
    expect(codes[0]).toMatchObject({ channel: 'email', target: 'ada@example.com', code: expect.stringMatching(/^\d{6}$/) });
    expect((await t.api('POST', '/v1/verify/email/confirm', KEYS.liveFull, { email: 'ada@example.com', code: codes[0].code })).status).toBe(200);
  });
});

describe('no sandbox', () => {
  it('a closed port is exit 1 with one line saying no sandbox is running there', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise((resolve) => server.close(resolve));
    const r = await runCliInProcess(['clock', '--url', `http://127.0.0.1:${port}`]);
    expect(expectOneLineFailure(r)).toContain(`no sandbox is running at http://127.0.0.1:${port} (connection refused)`);
    expect(r.stdout).toBe('');
  });
});
