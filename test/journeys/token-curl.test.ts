import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sh } from '../docs/run.ts';
import { root } from '../docs/extract.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { BROWSER_TEST_TIMEOUT, HAS_CHROMIUM, launchInspectorBrowser, type InspectorBrowser } from '../inspector/browser.ts';
import { startSandbox, type StartedSandbox } from './start.ts';

/**
 * The request as it was sent. A POST sent with curl and `Authorization:
 * Token <the README's key>` (a 401), found in the inspector in Chromium, copied as curl, and
 * replayed: the same 401, for the same reason. The row names the key and workspace the sandbox
 * can tell, the headers keep the scheme, and the command carries the body.
 */
const CURL = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].some((path) => existsSync(path));
let sandbox: StartedSandbox;
let chrome: InspectorBrowser;
beforeAll(async () => {
  sandbox = await startSandbox();
  if (HAS_CHROMIUM) chrome = await launchInspectorBrowser();
}, 90_000);
afterAll(async () => {
  await chrome?.close();
  await sandbox?.stop();
});

/** `curl -s -D -` of a command: its status line and X-Sandbox-Reason */
async function answered(command: string, env: Record<string, string> = {}): Promise<{ status: number; reason: string }> {
  const ran = await sh(`${command} -s -o /dev/null -D -`, root, env);
  expect(ran.code, ran.output).toBe(0);
  return { status: Number(/^HTTP\/[\d.]+ (\d+)/m.exec(ran.output)?.[1]), reason: /^x-sandbox-reason: (.*)\r?$/im.exec(ran.output)?.[1]?.trim() ?? '' };
}

describe.skipIf(!HAS_CHROMIUM || !CURL)('journey: a Token request copied as curl from the inspector', () => {
  it('replays to the same 401', { timeout: BROWSER_TEST_TIMEOUT }, async () => {
    const body = '{"departureId":"dept_5b78b736-b475-4c84-867e-1b9b3be56fac","adults":2}';
    const sent = await answered(
      `curl -X POST ${sandbox.url}/v1/bookings -H 'Authorization: Token ${KEYS.sandboxFull}' -H 'Content-Type: application/json' -H 'X-Request-ID: req_journey_token' --data-raw '${body}'`,
    );
    expect(sent.status).toBe(401);
    expect(sent.reason).toMatch(/^NOT_BEARER /);

    // the inspector opens after the request was made (nothing watched it)
    const { page, errors } = await chrome.open(`${sandbox.url}/__sandbox/ui/requests`);
    const row = page.locator('[role="row"][data-request-id="req_journey_token"]');
    await row.waitFor({ timeout: 20_000 });
    // the sandbox knows the key, sent with the wrong scheme: the row names it and its workspace
    expect(await row.textContent()).toContain('tcs_test_borealis');
    expect(await row.textContent()).toContain('Borealis');
    // the picker names the workspace once
    const options = await page.getByLabel('Workspace', { exact: true }).locator('option').allTextContents();
    expect(options).toContain('Borealis Adventures (sandbox)');

    await row.getByRole('link').click();
    await page.getByRole('region', { name: 'Request details' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => page.getByLabel('Request headers').textContent(), { timeout: 20_000 }).toContain('Token tcs_test_borealis');
    const command = (await page.getByLabel('curl command').textContent())!;
    expect(command).toContain('Authorization: Token $SANDBOX_KEY');
    expect(command).toContain(body);
    expect(command).toContain('content-type: application/json');
    expect(errors).toEqual([]);

    // replayed as copied, the key in $SANDBOX_KEY: the same answer
    const replayed = await answered(command, { SANDBOX_KEY: KEYS.sandboxFull });
    expect(replayed).toEqual(sent);
  });
});
