import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

/**
 * `sandbox exec --report` (docs/cli.md, "The run report"): a script
 * makes known /v1 requests (test/cli/fixtures/known-requests.mjs) and the
 * report counts exactly those. The clock is manual and limits are not
 * enforced, so the counts do not depend on how fast the machine is.
 */
const SCRIPT = fileURLToPath(new URL('./fixtures/known-requests.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'exec-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const exec = (flags: string[], env: Record<string, string> = {}) =>
  runCli(['exec', '--clock', 'manual', '--no-rate-limits', ...flags, '--', process.execPath, SCRIPT], env).exit;
/** A command that never reaches /v1: the recipes' old global setup, which started a sandbox of its own. */
const execEmpty = (flags: string[], env: Record<string, string> = {}) =>
  runCli(['exec', ...flags, '--', process.execPath, '-e', 'console.log("tests passed")'], env).exit;

/** Enough of an XML reader to prove the file is well formed and read its test cases (no XML parser is a dependency). */
function readJunit(text: string): { name: string; failure: string | null; skipped: boolean }[] {
  expect(text.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
  const open: string[] = [];
  const cases: { name: string; failure: string | null; skipped: boolean }[] = [];
  for (const [, close, name, attrs, selfClosing] of text.slice(text.indexOf('?>') + 2).matchAll(/<(\/?)([\w-]+)([^>]*?)(\/?)>/g)) {
    const attr = (key: string) => [...attrs!.matchAll(/\s(\w+)="([^"<]*)"/g)].find((m) => m[1] === key)?.[2];
    if (close) expect(open.pop(), `</${name}>`).toBe(name);
    else {
      if (name === 'testcase') cases.push({ name: attr('name')!, failure: null, skipped: false });
      if (name === 'failure') cases[cases.length - 1]!.failure = attr('message')!;
      if (name === 'skipped') cases[cases.length - 1]!.skipped = true;
      if (!selfClosing) open.push(name!);
    }
  }
  expect(open).toEqual([]);
  expect(text.replace(/<[^>]*>/g, '')).not.toMatch(/[<>]|&(?!amp;|lt;|gt;|quot;)/);
  return cases;
}

describe('sandbox exec --report', () => {
  it('writes a JSON report whose counts are the requests the command made, and a summary on stderr', async () => {
    const file = join(dir, 'r.json');
    const { code, stdout, stderr } = await exec(['--report', file]);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout.trim())).toEqual({ received: 2 }); // the child's stdout stays its own
    const report = JSON.parse(readFileSync(file, 'utf8'));
    expect(report.requests).toBe(8);
    expect(report.operations).toEqual([
      { operationId: 'listProducts', method: 'GET', path: '/v1/products', requests: 4, statuses: { 200: 3, 401: 1 }, warnings: {} },
      { operationId: 'createBooking', method: 'POST', path: '/v1/bookings', requests: 2, statuses: { 201: 2 }, warnings: {} },
      {
        operationId: 'createWebhooksSubscription',
        method: 'POST',
        path: '/v1/webhooks/subscriptions',
        requests: 1,
        statuses: { 201: 1 },
        warnings: { UNKNOWN_FIELD: 1, UNDOCUMENTED_ENDPOINT: 1, LOOPBACK_HTTP_URL: 1 },
      },
      { operationId: 'getDeparture', method: 'GET', path: '/v1/departures/{id}', requests: 1, statuses: { 200: 1 }, warnings: {} },
    ]);
    expect(report.neverCalled.map((op: { operationId: string }) => op.operationId)).toContain('listBookings');
    expect(report.neverCalled.map((op: { operationId: string }) => op.operationId)).not.toContain('createBooking');
    // POST /v1/webhooks/subscriptions is not in the API description: every call warns
    expect(report.warnings).toEqual([
      { code: 'LOOPBACK_HTTP_URL', count: 1, example: expect.objectContaining({ method: 'POST', path: '/v1/webhooks/subscriptions', status: 201 }) },
      { code: 'UNDOCUMENTED_ENDPOINT', count: 1, example: expect.objectContaining({ method: 'POST', path: '/v1/webhooks/subscriptions', status: 201 }) },
      { code: 'UNKNOWN_FIELD', count: 1, example: expect.objectContaining({ method: 'POST', path: '/v1/webhooks/subscriptions', status: 201 }) },
    ]);
    expect(report.warnings[2].example.message).toContain('colour');
    expect(report.refusals).toEqual([
      { code: 'MISSING_AUTHORIZATION', count: 1, example: expect.objectContaining({ method: 'GET', path: '/v1/products?limit=2', status: 401 }) },
    ]);
    expect(report.rateLimits).toEqual({ refused: 0, reported: 2 }); // 7 authenticated requests, a burst of 5, a frozen clock
    expect(report.webhooks).toEqual({ sent: 2, failed: 0, pending: 0 });
    const summary = stderr.trim().split('\n');
    expect(summary[0]).toBe(`sandbox: 8 requests to /v1 (200 x4, 201 x3, 401 x1); 4 of ${4 + report.neverCalled.length} operations called`);
    expect(summary).toContain('refusals: MISSING_AUTHORIZATION x1');
    expect(summary).toContain('webhooks: 2 sent, 0 failed, 0 pending');
    expect(summary.length).toBeLessThanOrEqual(15);
  });

  it('--report-format junit: one test case per operation, failed where a warning fired, skipped where never called; --fail-on-warning exits 1', async () => {
    const file = join(dir, 'r.xml');
    const { code, stderr } = await exec(['--report', file, '--report-format', 'junit', '--fail-on-warning']);
    expect(code, stderr).toBe(1);
    expect(stderr).toContain('--fail-on-warning: 2 warnings (UNDOCUMENTED_ENDPOINT, UNKNOWN_FIELD); exit 1');
    const cases = readJunit(readFileSync(file, 'utf8'));
    const byName = new Map(cases.map((c) => [c.name.split(' ')[0], c]));
    expect(byName.get('createWebhooksSubscription')).toEqual({
      name: 'createWebhooksSubscription (POST /v1/webhooks/subscriptions)',
      failure: 'accepted only by guessing: UNDOCUMENTED_ENDPOINT x1, UNKNOWN_FIELD x1',
      skipped: false,
    });
    expect(byName.get('listProducts')).toMatchObject({ failure: null, skipped: false });
    expect(byName.get('listBookings')).toMatchObject({ failure: null, skipped: true });
    expect(cases.filter((c) => c.failure)).toHaveLength(1);
    expect(cases.filter((c) => !c.skipped)).toHaveLength(4);
  });

  it("keeps the command's own exit code when it fails, whatever the warnings", async () => {
    const { code, stderr } = await exec(['--fail-on-warning'], { EXIT_WITH: '3' });
    expect(code, stderr).toBe(3);
    expect(stderr).toContain('sandbox: 8 requests to /v1');
  });

  it('--allow-warning: --fail-on-warning and the JUnit report accept those codes, the others still fail; a GitHub job summary is appended', async () => {
    const file = join(dir, 'allow.xml');
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '## an earlier step\n');
    const { code, stderr } = await exec(['--report', file, '--report-format', 'junit', '--fail-on-warning', '--allow-warning', 'UNDOCUMENTED_ENDPOINT'], {
      GITHUB_STEP_SUMMARY: summary,
    });
    expect(code, stderr).toBe(1);
    expect(stderr).toContain('sandbox: --fail-on-warning: 1 warning (UNKNOWN_FIELD); exit 1\n');
    expect(stderr).toContain('warning UNDOCUMENTED_ENDPOINT x1 (allowed), e.g. POST /v1/webhooks/subscriptions');
    const cases = readJunit(readFileSync(file, 'utf8'));
    expect(cases.find((c) => c.name.startsWith('createWebhooksSubscription'))!.failure).toBe('accepted only by guessing: UNKNOWN_FIELD x1');
    const md = readFileSync(summary, 'utf8');
    expect(md.startsWith('## an earlier step\n### Sandbox run report: sandbox exec\n')).toBe(true);
    expect(md).toContain('**8 requests** to /v1 (200 x4, 201 x3, 401 x1)'.replace(/ x/g, ' ×'));
    expect(md).toContain('· exit 1');
    // LOOPBACK_HTTP_URL is informational (--strict does not refuse it): never a failure
    expect(md).toMatch(
      /\| `createWebhooksSubscription` POST \/v1\/webhooks\/subscriptions \| 1 \| 201 ×1 \| LOOPBACK_HTTP_URL ×1 \(allowed\), UNDOCUMENTED_ENDPOINT ×1 \(allowed\), UNKNOWN_FIELD ×1 \|/,
    );
    expect(md).toMatch(/<details><summary>Never called \(\d+\)<\/summary>/);
    expect(md).toContain('| `MISSING_AUTHORIZATION` | 1 |');

    const all = await exec(['--fail-on-warning', '--allow-warning', 'UNDOCUMENTED_ENDPOINT,UNKNOWN_FIELD']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).not.toContain('--fail-on-warning:');
  });

  it('refuses an unknown --allow-warning code in one line, before running the command', async () => {
    const { code, stdout, stderr } = await exec(['--fail-on-warning', '--allow-warning', 'UNDOCUMENTED_ENDPOIT']);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(
      /^sandbox: --allow-warning: no warning is called "UNDOCUMENTED_ENDPOIT"; the codes: UNKNOWN_FIELD, .*UNDOCUMENTED_ENDPOINT, INFERRED_LIMIT, ASSUMED_DEFAULT, LOOPBACK_HTTP_URL\n$/,
    );
  });
});

describe('a run that sent no request to /v1', () => {
  it('fails under --report, says so loudly, and still writes the report and the job summary', async () => {
    const file = join(dir, 'empty.json');
    const summary = join(dir, 'empty-summary.md');
    const { code, stdout, stderr } = await execEmpty(['--report', file], { GITHUB_STEP_SUMMARY: summary });
    expect(stdout).toBe('tests passed\n');
    expect(code, stderr).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe('sandbox: 0 requests to /v1; 0 of 33 operations called');
    expect(lines.at(-1)).toMatch(
      /^sandbox: the command sent 0 requests to \/v1 at http:\/\/127\.0\.0\.1:\d+, so this report checked nothing; did its setup start a sandbox of its own instead of using SANDBOX_URL\? .*; exit 1 \(--allow-empty to accept an empty run\)$/,
    );
    expect(JSON.parse(readFileSync(file, 'utf8')).requests).toBe(0);
    expect(readFileSync(summary, 'utf8')).toContain('**⚠️ 0 requests reached /v1: this run checked nothing against the sandbox.**');
  });

  it('fails under --fail-on-warning too, and passes with --allow-empty, still saying so', async () => {
    const gated = await execEmpty(['--fail-on-warning']);
    expect(gated.code, gated.stderr).toBe(1);
    const allowed = await execEmpty(['--fail-on-warning', '--allow-empty']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain('sandbox: the command sent 0 requests to /v1');
    expect(allowed.stderr).not.toContain('exit 1');
  });

  it('passes without a gate (no --report, no --fail-on-warning), still saying so', async () => {
    const { code, stderr } = await execEmpty([]);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('so this report checked nothing');
  });
});
