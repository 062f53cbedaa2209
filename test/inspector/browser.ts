import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../bench/lib/chromium.ts';
import { ensureInspectorBuilt } from './bundle.ts';
import { chromiumOrSkip } from '../setup/chromium.ts';

/**
 * Real Chromium (Debian's package, driven by playwright-core: nothing is
 * downloaded; .ci/run installs it when missing) for the inspector's tests.
 */
export { CHROMIUM, CHROMIUM_ARGS };
/** false without Chromium (each file's tests are then skipped, and the run's end names them); throws under CI */
export const HAS_CHROMIUM = chromiumOrSkip();
export const VIEWPORT = { width: 1280, height: 800 };
/**
 * A browser test's own bound (vitest's default is 30 s): Chromium and the sandbox share the
 * 2-core machine with the rest of the suite, and a bound is not a timing assertion.
 */
export const BROWSER_TEST_TIMEOUT = 120_000;
/**
 * docs/inspector.md shows these, taken by the tests themselves: written there with
 * UPDATE_SCREENSHOTS=1 (`UPDATE_SCREENSHOTS=1 npx vitest run test/inspector`), to a temporary
 * folder otherwise, so that `npm test` leaves the checkout as it found it (each run's pictures
 * differ by the times and ids they show)
 */
export const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS ? join(import.meta.dirname, '../../docs/inspector') : join(tmpdir(), 'sandbox-inspector-screenshots');

export interface InspectorBrowser {
  browser: Browser;
  /** a new page at `url`, whose console errors and page errors are collected in `errors` */
  open(url: string): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function launchInspectorBrowser(): Promise<InspectorBrowser> {
  await ensureInspectorBuilt();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
  return {
    browser,
    async open(url) {
      const page = await browser.newPage({ viewport: VIEWPORT });
      // a locator read (textContent...) inside expect.poll waits at most this long for its element
      page.setDefaultTimeout(20_000);
      const errors: string[] = [];
      page.on('console', (message: ConsoleMessage) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(url);
      return { page, errors };
    },
    close: () => browser.close(),
  };
}

/** Saves a 1280×800 screenshot of the page as <name>.png under SCREENSHOTS (docs/inspector.md). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}
