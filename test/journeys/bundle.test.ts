import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { readBundleFile } from '../../src/bundle/file.ts';
import { stateRows } from '../../src/bundle/state-export.ts';
import { runCli, type Running } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { BROWSER_TEST_TIMEOUT, HAS_CHROMIUM, launchInspectorBrowser, screenshot, type InspectorBrowser } from '../inspector/browser.ts';

/**
 * A red CI job opened on a laptop (docs/cli.md, "The failure bundle"), as a user drives it: a
 * failing Vitest run under `sandbox exec --bundle-on-failure` writes the bundle and exits with the
 * test's code; `sandbox open` serves it, and Chromium finds the failing request and its reason in
 * the Requests view; a write is refused; `sandbox start --from-bundle` answers the same records.
 */
const dir = mkdtempSync(join(tmpdir(), 'bundle-journey-'));
const bundleFile = join(dir, 'b.json.gz');
const SUITE = join(import.meta.dirname, 'failing-suite', 'vitest.config.ts');
const WAIT = { timeout: 30_000 };
const running: Running[] = [];
let chrome: InspectorBrowser | undefined;

afterAll(async () => {
  for (const run of running) if (run.child.exitCode === null) run.child.kill('SIGINT');
  await Promise.all(running.map((run) => run.exit));
  await chrome?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A CLI that serves until stopped; its --json ready line, parsed. */
async function serving(args: string[]): Promise<Record<string, string>> {
  const run = runCli(args);
  running.push(run);
  const line = await run.firstLine;
  try {
    return JSON.parse(line) as Record<string, string>;
  } catch {
    throw new Error(`no ready line from sandbox ${args.join(' ')}: ${JSON.stringify(run.output())}`);
  }
}

describe('the failure bundle, from a red run to a laptop', { timeout: BROWSER_TEST_TIMEOUT }, () => {
  let openUrl = '';
  let inspectorUrl = '';

  it('a failing Vitest run under exec --bundle-on-failure writes the bundle and exits with the test’s code', async () => {
    const run = runCli(
      ['exec', '--clock', 'manual', '--bundle-on-failure', bundleFile, '--', process.execPath, 'node_modules/vitest/vitest.mjs', 'run', '--config', SUITE],
      {},
    );
    const { code, stderr } = await run.exit;
    expect(code, stderr).toBe(1);
    expect(existsSync(bundleFile)).toBe(true);
    expect(stderr).toContain(`bundle: ${bundleFile}`);
    expect(stderr).toContain(`npx sandbox open ${bundleFile}`);
    const bundle = await readBundleFile(bundleFile);
    expect(bundle.run).toMatchObject({ exitCode: 1 });
    expect(bundle.requests.entries.find((e) => e.requestId === 'req_journey_missing')).toMatchObject({
      status: 404,
      reason: expect.stringMatching(/^NOT_FOUND /),
    });
    // the run sent a key and was answered a signing secret: neither is in the file
    const text = gunzipSync(readFileSync(bundleFile)).toString('utf8');
    expect(text).not.toMatch(/tcs_(?:test|live)_[A-Za-z0-9_]{24,}/);
    expect(text).not.toMatch(/whsec_[A-Za-z0-9+/=_-]{16,}/);
  });

  it('sandbox open serves it and prints the URL of the inspector', async () => {
    const ready = await serving(['open', bundleFile, '--json']);
    openUrl = ready.url!;
    inspectorUrl = ready.inspectorUrl!;
    expect(inspectorUrl).toBe(`${openUrl}/__sandbox/ui/`);
    const requests = (await (await fetch(`${openUrl}/__sandbox/requests?limit=1000`)).json()) as { data: { requestId: string }[] };
    expect(requests.data.map((e) => e.requestId)).toContain('req_journey_missing');
  });

  it.skipIf(!HAS_CHROMIUM)('Chromium finds the failing request and its reason in the Requests view', async () => {
    chrome = await launchInspectorBrowser();
    const { page, errors } = await chrome.open(`${inspectorUrl}requests`);
    // above every view, the page says what it shows: a bundle, read-only
    await expect.poll(() => page.getByRole('note', { name: 'Read-only bundle' }).textContent(), WAIT).toContain(`serves the bundle ${bundleFile}, read-only`);
    const row = page.locator('[role="row"][data-request-id="req_journey_missing"]');
    await row.waitFor(WAIT);
    await screenshot(page, 'bundle-requests');
    expect(await row.textContent()).toContain('NOT_FOUND');
    await row.click();
    await expect.poll(() => page.getByTestId('refusal-reason').textContent(), WAIT).toMatch(/NOT_FOUND .*book_00000000-0000-4000-8000-0000000000aa/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it.skipIf(!HAS_CHROMIUM)(
    "every view shows the run: Data, Webhooks with the delivery's attempt, Time, Keys; a button that writes is told why not",
    async () => {
      const bundle = await readBundleFile(bundleFile);
      const ws = bundle.sandbox.defaultWorkspaceId!;
      const rows = stateRows(bundle.state);
      const [subscription] = Object.values(rows.webhookSubscriptions![ws]!).filter((s) => s.url === 'http://127.0.0.1:9/orders');
      const [delivery] = Object.values(rows.webhookDeliveries![ws]!);
      const { page, errors } = await chrome!.open(`${inspectorUrl}data/webhookSubscriptions?workspace=${ws}`);
      await page
        .getByRole('table', { name: /records$/ })
        .getByText('http://127.0.0.1:9/orders')
        .waitFor(WAIT);

      await page.getByTestId('nav-webhooks').click();
      await page.getByRole('table', { name: 'Subscriptions' }).getByText(subscription!.id).waitFor(WAIT);
      await page.getByTestId(`delivery-${delivery!.id}`).click();
      await page
        .getByRole('region', { name: `Delivery ${delivery!.id}` })
        .getByTestId('attempt-1')
        .waitFor(WAIT);

      await page.getByTestId('nav-time').click();
      await page.getByTestId('clock-now').getByText(bundle.clock.now).waitFor(WAIT);
      await page.getByRole('button', { name: 'Advance clock 1 hour' }).click();
      await expect.poll(() => page.getByRole('alert').first().textContent(), WAIT).toMatch(/403 READ_ONLY: This sandbox serves the bundle/);
      await page.getByTestId('clock-now').getByText(bundle.clock.now).waitFor(WAIT); // it did not move

      await page.getByTestId('nav-keys').click();
      await page.getByRole('table', { name: 'Workspace keys' }).getByText('Borealis full access (fixture)').waitFor(WAIT);
      // the refused calls are the only errors the page logged (Chromium logs each failed fetch)
      expect(errors.filter((e) => !e.includes('403'))).toEqual([]);
      await page.close();
    },
  );

  it('a write is refused, saying the bundle is read-only', async () => {
    const reset = await fetch(`${openUrl}/__sandbox/reset`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(reset.status).toBe(403);
    expect(((await reset.json()) as { error: string }).error).toMatch(/serves the bundle .*, read-only/);
    const api = await fetch(`${openUrl}/v1/webhooks/subscriptions`, { headers: { authorization: `Bearer ${KEYS.sandboxFull}` } });
    expect(api.headers.get('x-sandbox-reason')).toMatch(/^READ_ONLY /);
  });

  it('start --from-bundle answers the same records, on the bundle’s clock', async () => {
    const bundle = await readBundleFile(bundleFile);
    const workspaceId = bundle.sandbox.defaultWorkspaceId!;
    const subscriptions = Object.values(stateRows(bundle.state).webhookSubscriptions![workspaceId]!).filter((s) => s.url === 'http://127.0.0.1:9/orders');
    expect(subscriptions).toHaveLength(1);
    const ready = await serving(['start', '--from-bundle', bundleFile, '--port', '0', '--json']);
    const url = ready.url!;
    const live = await fetch(`${url}/v1/webhooks/subscriptions/${subscriptions[0]!.id}`, { headers: { authorization: `Bearer ${KEYS.sandboxFull}` } });
    expect(live.status).toBe(200);
    const { secret: _secret, ...stored } = subscriptions[0]!;
    expect(((await live.json()) as { data: Record<string, unknown> }).data).toMatchObject({ id: stored.id, url: stored.url, created_at: stored.created_at });
    const clock = (await (await fetch(`${url}/__sandbox/clock`)).json()) as { data: { mode: string; nowMs: number } };
    expect(clock.data).toMatchObject({ mode: 'manual', nowMs: bundle.clock.nowMs });
    // a live sandbox: it takes writes
    const reset = await fetch(`${url}/__sandbox/reset`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    expect(reset.status).toBe(200);
  });
});
