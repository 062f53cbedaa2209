import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';

/**
 * The attack suite: a loop that creates workspaces through
 * the control plane, over a real socket, with the default settings. It is
 * stopped at the default cap (1,000) with a 409 that says what to do, and
 * the sandbox goes on serving. (The cap's finer points, a custom cap,
 * concurrent creates and the CLI: test/workspaces/cap.test.ts.)
 */
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await createSandbox({ port: 0, storage: 'memory', enforceRateLimits: false });
});
afterAll(() => sandbox.stop());

const create = () => fetch(`${sandbox.url}/__sandbox/workspaces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });

describe('a loop of workspace creates', () => {
  it('is stopped at the default cap of 1,000 with a 409 that says how to delete or raise it', async () => {
    const statuses: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next++ < 1000) {
        const res = await create();
        await res.arrayBuffer();
        statuses.push(res.status);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    expect(statuses.filter((s) => s === 201)).toHaveLength(1000);

    const refused = await create();
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: string; code: string };
    expect(body.code).toBe('CONTROL_CONFLICT');
    expect(body.error).toMatch(/^This sandbox has 1000 created workspaces, its limit: delete some \(DELETE \/__sandbox\/workspaces\/:id/);
    expect(body.error).toContain('--max-workspaces');

    // the sandbox still serves, and a global reset keeps the 1,000
    expect((await fetch(`${sandbox.url}/__sandbox/reset`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    const listed = (await (await fetch(`${sandbox.url}/__sandbox/workspaces`)).json()) as { data: { created?: boolean }[] };
    expect(listed.data.filter((w) => w.created)).toHaveLength(1000);
    expect((await create()).status).toBe(409);
  }, 120_000);
});
