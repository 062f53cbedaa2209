import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_WORKSPACES, resolveOptions } from '../../src/config.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { runCli } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { expectOneLineFailure } from '../cli/commands/harness.ts';

/**
 * Created workspaces are capped, 1,000 by default; past the cap, creating one is a
 * 409 whose one line says how to delete some or raise the cap.
 */
const CAP = 3;
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ maxWorkspaces: CAP });
});
afterAll(() => t.sandbox.stop());

// t.request checks every answer against the served OpenAPI document: the 409 must be listed there
const control = (method: string, path: string, body?: unknown) =>
  t.request(method, `/__sandbox${path}`, { key: null, ...(body === undefined ? {} : { body }) });
const createdIds = async () =>
  ((await control('GET', '/workspaces')).json().data as { id: string; created?: boolean }[]).filter((w) => w.created).map((w) => w.id);
async function deleteAll() {
  for (const id of await createdIds()) expect((await control('DELETE', `/workspaces/${id}`)).statusCode).toBe(200);
}

describe('the cap on created workspaces', () => {
  it('is 1,000 by default', () => {
    expect(DEFAULT_MAX_WORKSPACES).toBe(1000);
    expect(resolveOptions({}).maxWorkspaces).toBe(1000);
  });

  it('answers 409 past it, in one line that says how to delete workspaces or raise the cap; a delete makes room', async () => {
    for (let i = 0; i < CAP; i++) expect((await control('POST', '/workspaces', { name: `w${i}` })).statusCode).toBe(201);
    const refused = await control('POST', '/workspaces', { name: 'one too many' });
    expect(refused.statusCode).toBe(409);
    const body = refused.json() as { error: string; code: string };
    expect(body.code).toBe('CONTROL_CONFLICT');
    expect(body.error).not.toContain('\n');
    expect(body.error).toContain(`${CAP} created workspaces`);
    expect(body.error).toContain('DELETE /__sandbox/workspaces/:id');
    expect(body.error).toContain('sandbox workspace delete');
    expect(body.error).toContain('--max-workspaces');
    // sandbox.createWorkspace() is held to the same cap
    await expect(t.sandbox.createWorkspace()).rejects.toMatchObject({ statusCode: 409 });
    expect(await createdIds()).toHaveLength(CAP);

    const [first] = await createdIds();
    await control('DELETE', `/workspaces/${first}`);
    expect((await control('POST', '/workspaces', {})).statusCode).toBe(201);
  });

  it('holds for creates that run at the same time', async () => {
    await deleteAll();
    const statuses = (await Promise.all(Array.from({ length: CAP + 3 }, () => control('POST', '/workspaces', {})))).map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 201)).toHaveLength(CAP);
    expect(statuses.filter((s) => s === 409)).toHaveLength(3);
    expect(await createdIds()).toHaveLength(CAP);
  });

  it('is kept by a global reset, which keeps the created workspaces', async () => {
    await t.sandbox.reset();
    expect(await createdIds()).toHaveLength(CAP);
    expect((await control('POST', '/workspaces', {})).statusCode).toBe(409);
  });
});

describe('the CLI past the cap', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', storage: 'memory', maxWorkspaces: 1 });
  });
  afterAll(() => sandbox.stop());

  it('`sandbox workspace create` prints the one line', async () => {
    expect((await runCliInProcess(['workspace', 'create', '--json', '--url', sandbox.url])).code).toBe(0);
    const line = expectOneLineFailure(await runCliInProcess(['workspace', 'create', '--url', sandbox.url]));
    expect(line).toMatch(/has 1 created workspaces, its limit: delete some .*sandbox workspace delete.*--max-workspaces/);
  });

  it('`sandbox exec --workers` beyond --max-workspaces fails with the line, before running the command', async () => {
    const { code, stdout, stderr } = await runCli(['exec', '--max-workspaces', '2', '--workers', '3', '--', process.execPath, '-e', 'console.log("ran")']).exit;
    expect(code).toBe(1);
    expect(stdout).not.toContain('ran');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^sandbox: --workers 3: This sandbox has 2 created workspaces, its limit: .*--max-workspaces/);
  });
});
