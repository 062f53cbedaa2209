import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { expectOneLineFailure, json, useSandbox } from '../cli/commands/harness.ts';

const s = useSandbox();

describe('sandbox workspace create|list|reset|delete', () => {
  it('creates a workspace whose key works, lists it as created, resets and deletes it', async () => {
    const created = json<{ id: string; keys: { key: string; scopes: string[] | null }[] }>(
      await s.cli(['workspace', 'create', '--name', 'cli worker', '--json']),
    );
    expect(created.keys.map((k) => k.scopes)).toEqual([null, ['products:read']]);
    expect((await s.api('GET', '/v1/products?limit=1', created.keys[0]!.key)).status).toBe(200);
    const listed = json<{ id: string; created: boolean }[]>(await s.cli(['workspace', 'list', '--json']));
    expect(listed.filter((w) => w.created).map((w) => w.id)).toEqual([created.id]);
    expect(json(await s.cli(['workspace', 'reset', created.id, '--json']))).toMatchObject({ id: created.id, reset: true });
    expect(json(await s.cli(['workspace', 'advance', 'cli worker', '10m', '--json']))).toMatchObject({ offsetMs: 600_000 });
    expect(json(await s.cli(['workspace', 'delete', created.id, '--json']))).toEqual({ id: created.id, deleted: true });
    expect((await s.api('GET', '/v1/products?limit=1', created.keys[0]!.key)).status).toBe(401);
  });

  it('--rate-limits report: a worker on the frozen clock is never refused; a bad mode is one line', async () => {
    const created = json<{ rateLimits: string; keys: { key: string }[] }>(await s.cli(['workspace', 'create', '--rate-limits', 'report', '--json']));
    expect(created.rateLimits).toBe('report');
    const statuses = new Set<number>();
    for (let i = 0; i < 8; i++) statuses.add((await s.api('GET', '/v1/products?limit=1', created.keys[0]!.key)).status);
    expect([...statuses]).toEqual([200]);
    expect(expectOneLineFailure(await s.cli(['workspace', 'create', '--rate-limits', 'sometimes']))).toBe(
      'sandbox: --rate-limits must be enforce or report, not "sometimes"',
    );
  });

  it('refuses to delete a fixture workspace in one line', async () => {
    const line = expectOneLineFailure(await s.cli(['workspace', 'delete', 'Aurora Tours']));
    expect(line).toMatch(/fixtures and cannot be deleted/);
  });
});

describe('sandbox exec --workers', () => {
  it('creates one workspace per worker and exports SANDBOX_API_KEY_1..n next to SANDBOX_API_KEY', async () => {
    const probe = `
const keys = [process.env.SANDBOX_API_KEY, process.env.SANDBOX_API_KEY_1, process.env.SANDBOX_API_KEY_2, process.env.SANDBOX_API_KEY_3];
const statuses = [];
for (const key of keys) statuses.push((await fetch(process.env.SANDBOX_URL + '/v1/products?limit=1', { headers: { authorization: 'Bearer ' + key } })).status);
const ids = [1, 2, 3].map((i) => process.env['SANDBOX_WORKSPACE_ID_' + i]);
console.log(JSON.stringify({ statuses, distinct: new Set(keys).size, ids, none: process.env.SANDBOX_API_KEY_4 ?? null }));
`;
    const { code, stdout } = await runCli(['exec', '--workers', '3', '--', process.execPath, '--input-type=module', '-e', probe]).exit;
    expect(code).toBe(0);
    const seen = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(seen).toMatchObject({ statuses: [200, 200, 200, 200], distinct: 4, none: null });
    expect(new Set(seen.ids).size).toBe(3);
  });
});
