import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll } from 'vitest';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from '../../bench/lib/chromium.ts';
import { createSandbox, type Sandbox, type SandboxOptions } from '../../src/index.ts';
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

/**
 * Chromium as the browser tests launch it, without the omnibox renderer (CHROMIUM_ARGS): one per
 * file, closed by the file. `hostRules`: names it resolves to 127.0.0.1, as a
 * rebound DNS name would (test/inspector/guards.test.ts, test/security/browser.test.ts).
 */
export async function launchChromium(hostRules: readonly string[] = []): Promise<Browser> {
  const rules = hostRules.length > 0 ? [`--host-resolver-rules=${hostRules.map((host) => `MAP ${host} 127.0.0.1`).join(',')}`] : [];
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...rules] });
}

export interface InspectorBrowser {
  browser: Browser;
  /** a new page at `url` (in a context of its own), whose console errors and page errors are collected in `errors` */
  open(url: string): Promise<{ page: Page; errors: string[] }>;
  close(): Promise<void>;
}

export async function launchInspectorBrowser(): Promise<InspectorBrowser> {
  await ensureInspectorBuilt();
  const browser = await launchChromium();
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

/**
 * A browser file's usual setup, at the top of its describe: a sandbox (in memory, on a manual
 * clock, on a free port, plus `options`) and a browser before its tests, both stopped after them.
 * Read `suite.sandbox` and `suite.chrome` inside the tests.
 */
export function inspectorSuite(options: Partial<SandboxOptions> = {}): { readonly sandbox: Sandbox; readonly chrome: InspectorBrowser } {
  const suite = {} as { sandbox: Sandbox; chrome: InspectorBrowser };
  beforeAll(async () => {
    suite.sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', ...options });
    if (HAS_CHROMIUM) suite.chrome = await launchInspectorBrowser();
  });
  afterAll(async () => {
    await suite.chrome?.close();
    await suite.sandbox?.stop();
  });
  return suite;
}

/** Saves a 1280×800 screenshot of the page as <name>.png under SCREENSHOTS (docs/inspector.md). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}
