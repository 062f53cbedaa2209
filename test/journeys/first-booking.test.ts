import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../docs/extract.ts';
import { sh } from '../docs/run.ts';
import { runCli } from '../helpers/cli.ts';
import { BROWSER_TEST_TIMEOUT, HAS_CHROMIUM, launchInspectorBrowser } from '../inspector/browser.ts';
import { firstBookingBlock, firstBookingScript } from './readme-booking.ts';
import { startSandbox, type StartedSandbox } from './start.ts';

/**
 * A newcomer's first booking, driven as they drive it. `sandbox start` (a
 * process of its own), the README's "Try it" booking block run as written (one shell, the docs
 * test's way), the booking read back, the departure id found where the README says, and the
 * booking on top of the inspector's Data view, in Chromium.
 */
let sandbox: StartedSandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
}, 90_000);
afterAll(() => sandbox?.stop());

describe('journey: a first booking from the README', () => {
  it('the block asks the control plane for the departure the banner offers, books it and reads it back; the Data view shows it first', {
    timeout: BROWSER_TEST_TIMEOUT,
  }, async () => {
    const block = firstBookingBlock();
    expect(block.code).toContain('/departures/bookable?seats=2');
    const departure = /bookable\s+(dept_[\w-]+)/.exec(sandbox.banner)?.[1];
    expect(departure, 'the banner offers a bookable departure').toBeDefined();

    // the README says in one sentence where departure ids come from
    const tryIt = readFileSync(join(root, 'README.md'), 'utf8').split('## Try it')[1]!.split('\n## ')[0]!;
    expect(tryIt).toContain('sandbox data departures');
    expect(tryIt).toContain('Data view');
    expect(tryIt).toContain('control plane');

    const ran = await sh(`set -e\n${firstBookingScript(block, sandbox.url)}`, root);
    expect(ran.code, ran.output).toBe(0);
    const booking = (JSON.parse(ran.output) as { data: { id: string; departureId: string; status: string; adults: number } }).data;
    expect(booking).toMatchObject({ departureId: departure, status: 'pending', adults: 2 });

    // where the README sends the reader for departure ids: the CLI lists this one
    const listed = await runCli(['data', 'departures', '--workspace', 'Borealis Adventures (sandbox)'], { SANDBOX_URL: sandbox.url }).exit;
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(departure);

    if (!HAS_CHROMIUM) return;
    const workspace = /Borealis Adventures \(sandbox\)\s+(wksp_[\w-]+)/.exec(sandbox.banner)![1]!;
    const chrome = await launchInspectorBrowser();
    try {
      const { page, errors } = await chrome.open(`${sandbox.url}/__sandbox/ui/data/bookings?workspace=${workspace}`);
      const table = page.getByRole('table', { name: 'bookings records' });
      await table.waitFor({ timeout: 20_000 });
      // newest first: the booking just made is the first row, not row 92 below the fold
      await expect.poll(() => table.locator('tbody tr').first().locator('td').first().textContent(), { timeout: 20_000 }).toBe(booking.id);
      expect(errors).toEqual([]);
    } finally {
      await chrome.close();
    }
  });
});
