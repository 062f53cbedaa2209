import { describe, expect, it } from 'vitest';
import { defaultWebhookWorkspace } from '../../src/cli/webhook-workspace.ts';
import type { WorkspaceSummary } from '../../src/control/client.ts';
import { curlCommand, schemeOf, type CurlEntry } from '../../src/inspector/requests/curl.ts';
import { pickerLabel } from '../../src/inspector/workspace-label.ts';

/** Issue 37: listen's default workspace, Copy as curl's scheme, the picker's label. */
const ws = (name: string, mode: 'live' | 'sandbox', created = false) =>
  ({ id: `wksp_${name}`, name, mode, rateLimits: 'enforce', created, templateId: null, keys: [] }) as WorkspaceSummary;

describe('listen and trigger without --workspace', () => {
  it('take the one sandbox-mode workspace of the fixtures, whatever comes first', () => {
    expect(defaultWebhookWorkspace([ws('Aurora', 'live'), ws('Borealis', 'sandbox'), ws('worker 1', 'sandbox', true)]).name).toBe('Borealis');
    expect(defaultWebhookWorkspace([ws('Only', 'live')]).name).toBe('Only');
  });

  it('refuse in one line, naming the candidates, when several could be meant', () => {
    expect(() => defaultWebhookWorkspace([ws('A', 'sandbox'), ws('B', 'sandbox')])).toThrow(
      /several are in sandbox mode: "A" \(wksp_A\), "B" \(wksp_B\); choose one with --workspace$/,
    );
    expect(() => defaultWebhookWorkspace([ws('A', 'live'), ws('B', 'live')])).toThrow(/none is in sandbox mode: .*choose one with --workspace$/);
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
