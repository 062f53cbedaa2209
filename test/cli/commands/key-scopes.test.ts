import { describe, expect, it } from 'vitest';
import { expectOneLineFailure, json, useSandbox } from './harness.ts';

/** Scopes are checked against the API's, and listings tell keys apart. */
const t = useSandbox();

describe('scopes of new keys', () => {
  it('keys create refuses a misspelt resource with one line that suggests the right one and lists the known ones', async () => {
    const line = expectOneLineFailure(await t.cli(['keys', 'create', '--scopes', 'product:read']));
    expect(line).toMatch(
      /--scopes: scope "product:read" names no resource the API has \(did you mean "products"\?\); known resources: .*bookings.*products.*; actions: read, write/,
    );
  });

  it('refuses an unknown action and a scope that is not <resource>:<action>', async () => {
    expect(expectOneLineFailure(await t.cli(['keys', 'create', '--scopes', 'products:reed']))).toMatch(/names no action the API has \(did you mean "read"\?\)/);
    expect(expectOneLineFailure(await t.cli(['keys', 'create', '--scopes', 'products']))).toMatch(
      /scope "products" is not of the form <resource>:<action>.*known resources/,
    );
  });

  it('org-keys create checks its scopes the same way', async () => {
    expect(expectOneLineFailure(await t.cli(['org-keys', 'create', '--scopes', 'prodcts:read']))).toMatch(/did you mean "products"/);
  });

  it('accepts known scopes and wildcards', async () => {
    const r = await t.cli(['keys', 'create', '--scopes', 'products:read,bookings:*,*:read', '--json']);
    expect(r.code).toBe(0);
    expect(json(r).scopes).toEqual(['products:read', 'bookings:*', '*:read']);
  });

  it('the control plane refuses an unknown scope too, and lists the scopes there are', async () => {
    const workspace = ((await (await fetch(`${t.sandbox.url}/__sandbox/workspaces`)).json()) as { data: { id: string }[] }).data[0]!;
    const res = await fetch(`${t.sandbox.url}/__sandbox/workspaces/${workspace.id}/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: ['product:read'] }),
    });
    expect(res.status).toBe(400);
    const scopes = ((await (await fetch(`${t.sandbox.url}/__sandbox/scopes`)).json()) as { data: { scopes: string[] } }).data;
    expect(scopes.scopes).toEqual(expect.arrayContaining(['products:read', 'bookings:write', 'analytics:read', 'webhooks:read']));
  });
});

describe('key listings', () => {
  it("show prefixes that tell a workspace's keys apart", async () => {
    const workspaces = json<{ name: string; keys: { keyPrefix: string }[] }[]>(await t.cli(['keys', 'list', '--json']));
    for (const w of workspaces) {
      const prefixes = w.keys.map((k) => k.keyPrefix);
      expect(new Set(prefixes).size, w.name).toBe(prefixes.length);
    }
    const table = (await t.cli(['keys', 'list', '--workspace', 'Aurora Tours'])).stdout;
    expect(table).toContain('tcs_live_aurora_f');
    expect(table).toContain('tcs_live_aurora_p');
  });
});
