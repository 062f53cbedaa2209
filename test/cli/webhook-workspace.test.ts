import { describe, expect, it } from 'vitest';
import { defaultWorkspace, defaultWorkspaceOrRule } from '../../src/core/default-workspace.ts';
import type { WorkspaceSummary } from '../../src/control/client.ts';
import { curlCommand, schemeOf, type CurlEntry } from '../../src/inspector/requests/curl.ts';
import { pickerLabel } from '../../src/inspector/workspace-label.ts';

/** The default workspace's rule (listen's, trigger's and every door's), Copy as curl's scheme, the picker's label. */
const ws = (name: string, mode: 'live' | 'sandbox', created = false) =>
  ({ id: `wksp_${name}`, name, mode, rateLimits: 'enforce', created, templateId: null, default: false, keys: [] }) as WorkspaceSummary;

describe('the default workspace, without a choice', () => {
  it('is the first sandbox-mode fixture workspace, whatever comes first', () => {
    expect(defaultWorkspace([ws('Aurora', 'live'), ws('Borealis', 'sandbox'), ws('worker 1', 'sandbox', true)]).name).toBe('Borealis');
    expect(defaultWorkspace([ws('worker 1', 'sandbox', true), ws('A', 'sandbox'), ws('B', 'sandbox')]).name).toBe('A');
  });

  it('else the first fixture workspace, else the first workspace; none is one line', () => {
    expect(defaultWorkspace([ws('worker 1', 'sandbox', true), ws('Only', 'live')]).name).toBe('Only');
    expect(defaultWorkspace([ws('worker 1', 'live', true)]).name).toBe('worker 1');
    expect(() => defaultWorkspace([])).toThrow(/^the sandbox has no workspace$/);
  });
});

describe('the default workspace, chosen (--default-workspace, $SANDBOX_WORKSPACE)', () => {
  const all = [ws('Aurora Tours', 'live'), ws('Borealis Adventures (sandbox)', 'sandbox'), ws('Borealis copy', 'sandbox', true)];

  it('is named as --workspace names one: an id, a name in any case, or an unambiguous part', () => {
    expect(defaultWorkspace(all, 'wksp_Aurora Tours').name).toBe('Aurora Tours');
    expect(defaultWorkspace(all, 'aurora').name).toBe('Aurora Tours');
    expect(defaultWorkspace(all, 'borealis COPY').name).toBe('Borealis copy');
  });

  it('a name that is no workspace, or several, is one line that says where it came from', () => {
    expect(() => defaultWorkspace(all, 'Atlantis', 'SANDBOX_WORKSPACE="Atlantis"')).toThrow(
      /^SANDBOX_WORKSPACE="Atlantis" names no workspace; known: Aurora Tours \(wksp_Aurora Tours\), /,
    );
    expect(() => defaultWorkspace(all, 'borealis')).toThrow(/^the default workspace "borealis" matches 2 workspaces: .*; give more of the name, or the id$/);
  });

  it('gives way to the rule where it names none of those there are (a template must be a fixture)', () => {
    expect(defaultWorkspaceOrRule(all, 'Atlantis')?.name).toBe('Borealis Adventures (sandbox)');
    expect(defaultWorkspaceOrRule(all, 'aurora')?.name).toBe('Aurora Tours');
    expect(defaultWorkspaceOrRule([], 'aurora')).toBeUndefined();
  });
});

describe('Copy as curl', () => {
  const entry = (authorization: string | null, body: string | null = null): CurlEntry => ({
    method: 'POST',
    path: '/v1/bookings',
    keyPrefix: null,
    detail: { request: { headers: { ...(authorization ? { authorization } : {}), 'content-type': 'application/json' }, body } },
  });

  it('sends the scheme the request used, its headers and its body', () => {
    const command = curlCommand(entry('Token tcs_test_borealis_f…', '{"adults":2}'), 'http://127.0.0.1:4010', null);
    expect(command).toContain(`-H "Authorization: Token $SANDBOX_KEY"`);
    expect(command).toContain(`-H 'content-type: application/json'`);
    expect(command).toContain(`--data-raw '{"adults":2}'`);
    expect(curlCommand(entry('tcs_test_borealis_f…'), 'http://x', 'tcs_test_key')).toContain(`-H 'Authorization: tcs_test_key'`);
  });

  it('reads the scheme of a logged value', () => {
    expect(schemeOf('Bearer abc… (not a known key)')).toBe('Bearer ');
    expect(schemeOf('Token tcs_test_borealis_f…')).toBe('Token ');
    expect(schemeOf('tcs_test_borealis_f…')).toBe('');
  });
});

describe('the workspace picker', () => {
  it('names a workspace once', () => {
    expect(pickerLabel({ name: 'Borealis Adventures (sandbox)', mode: 'sandbox' })).toBe('Borealis Adventures (sandbox)');
    expect(pickerLabel({ name: 'Aurora Tours', mode: 'live' })).toBe('Aurora Tours (live)');
    expect(pickerLabel({ name: 'Olive Tours', mode: 'live' })).toBe('Olive Tours (live)');
  });
});
