import { describe, expect, it } from 'vitest';
import { KEYS } from '../../helpers/sandbox.ts';
import { expectOneLineFailure, json, useSandbox } from './harness.ts';

const t = useSandbox();

describe('sandbox keys', () => {
  it('list --json gives every workspace with its keys', async () => {
    const r = await t.cli(['keys', 'list', '--json']);
    expect(r.code).toBe(0);
    const workspaces = json<{ name: string; keys: { key: string | null }[] }[]>(r);
    expect(workspaces.map((w) => w.name)).toContain('Aurora Tours');
    expect(workspaces.flatMap((w) => w.keys.map((k) => k.key))).toContain(KEYS.liveFull);
  });

  it('create prints the key once; it works until revoke, and a second revoke fails with one line', async () => {
    const created = await t.cli(['keys', 'create', '--workspace', 'aurora tours', '--name', 'CI', '--scopes', 'products:read']);
    expect(created.code).toBe(0);
    const key = /^\s+(tcs_live_\S+)$/m.exec(created.stdout)?.[1];
    const id = /(wkey_[0-9a-f-]{36})/.exec(created.stdout)?.[1];
    expect(key).toBeDefined();
    expect(created.stdout).toContain('shown only this once');
    expect((await t.api('GET', '/v1/products?limit=1', key!)).status).toBe(200);
    expect((await t.api('POST', '/v1/forms', key!, { name: 'x', fields: [] })).status).toBe(403);

    const revoked = await t.cli(['keys', 'revoke', id!, '--json']);
    expect(json(revoked)).toMatchObject({ id, status: 'revoked' });
    expect((await t.api('GET', '/v1/products?limit=1', key!)).status).toBe(401);
    expect(expectOneLineFailure(await t.cli(['keys', 'revoke', id!]))).toMatch(/already revoked/);
  });

  it('an unknown workspace is one line naming the known ones', async () => {
    expect(expectOneLineFailure(await t.cli(['keys', 'create', '--workspace', 'nope']))).toMatch(/no workspace "nope"; known: Aurora Tours/);
  });

  it('--help shows an example', async () => {
    const r = await t.cli(['keys', 'create', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Example:\n\s+\$ npx sandbox keys create/);
    expect(r.stdout).toContain('--url <url>');
  });
});

describe('sandbox org-keys', () => {
  it('create --json issues a working partner key; list shows its prefix only; revoke names the control plane', async () => {
    const created = await t.cli(['org-keys', 'create', '--scopes', 'products:read', '--rps', '2', '--rpm', '60', '--burst', '2', '--json']);
    expect(created.code).toBe(0);
    const key = json(created);
    expect(key).toMatchObject({ scopes: ['products:read'], rateLimitPolicy: { rps: 2, rpm: 60, burst: 2 }, status: 'active' });
    expect((await t.api('GET', '/v1/products?limit=1', key.key)).status).toBe(200);

    const listed = await t.cli(['org-keys', 'list', '--workspace', key.issuedByWorkspaceId]);
    // without --org or --workspace: the first organization of the sandbox's default workspace (Borealis)
    expect(key.issuedByWorkspaceId).toBe(t.sandbox.defaultWorkspace!.id);
    expect(listed.stdout).toMatch(new RegExp(`${key.id}\\s+Yukon Partner Travel\\s+${key.keyPrefix}\\s+products:read`));
    expect(listed.stdout).not.toContain(key.key);

    const revoked = await t.cli(['org-keys', 'revoke', key.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('by sandbox-control-plane');
    expect((await t.api('GET', '/v1/products?limit=1', key.key)).status).toBe(401);
  });

  it('revoke, ratelimit exhaust --key and fault add --key take the prefix org-keys list shows, or the key itself', async () => {
    const key = json(await t.cli(['org-keys', 'create', '--scopes', 'products:read', '--json']));
    expect((await t.api('GET', '/v1/products?limit=1', key.key)).status).toBe(200); // its bucket is made on first use
    const exhausted = await t.cli(['ratelimit', 'exhaust', '--key', key.keyPrefix, '--json']);
    expect(exhausted.stderr).toBe('');
    expect(exhausted.code).toBe(0);
    expect(json(exhausted)).toMatchObject({ id: key.id, kind: 'key', remaining: 0 });
    const fault = await t.cli(['fault', 'add', '--key', key.key, '--status', '503', '--times', '1', '--json']);
    expect(fault.code).toBe(0);
    expect(json(fault)).toMatchObject({ key: key.id });
    await t.cli(['fault', 'clear']);
    const revoked = await t.cli(['org-keys', 'revoke', key.key]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked ${key.id}`);
  });

  it('--rps without --rpm and --burst is refused with one line', async () => {
    expect(expectOneLineFailure(await t.cli(['org-keys', 'create', '--rps', '2']))).toMatch(/--rps, --rpm and --burst go together/);
  });
});
