import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Request, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { HAS_CHROMIUM, VIEWPORT, BROWSER_TEST_TIMEOUT, launchChromium } from './browser.ts';
import { ensureInspectorBuilt } from './bundle.ts';
import { control, UI_WAIT } from './control-fetch.ts';

/**
 * The cross-site and Host rules of the control plane hold for the
 * inspector's routes, tested through a real browser: a rebound name gets 403,
 * a page from another origin cannot read the inspector nor drive the control
 * plane, and on a sandbox with a control token the page works only with the
 * token of its #fragment, which leaves the address bar and never travels in a URL.
 */
describe.skipIf(!HAS_CHROMIUM)(
  'the inspector behind the Host check, the cross-site rules and the control token (chromium)',
  { timeout: BROWSER_TEST_TIMEOUT },
  () => {
    let sandbox: Sandbox;
    let browser: Browser;
    let other: Server;
    let otherPort = 0;
    beforeAll(async () => {
      await ensureInspectorBuilt();
      sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
      // another origin: its script reads the inspector and posts to the control plane, then says it is done
      other = createServer((_req, res) => {
        const script = `
        const target = ${JSON.stringify(sandbox.url)};
        const status = (p) => p.then((r) => r.status, () => 'refused');
        (async () => {
          window.results = {
            ui: await status(fetch(target + '/__sandbox/ui/')),
            uiNoCors: await status(fetch(target + '/__sandbox/ui/', { mode: 'no-cors' })),
            advance: await status(fetch(target + '/__sandbox/clock/advance', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ms":3600000}' })),
            advanceNoCors: await status(fetch(target + '/__sandbox/clock/advance', { method: 'POST', mode: 'no-cors', body: '{"ms":3600000}' })),
            faults: await status(fetch(target + '/__sandbox/faults', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"status":500}' })),
          };
          document.title = 'done';
        })();`;
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>other</title><script>${script}</script>`);
      });
      await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
      otherPort = (other.address() as AddressInfo).port;
      browser = await launchChromium(['rebind.test']);
    });
    afterAll(async () => {
      await browser?.close();
      await new Promise((resolve) => other?.close(resolve));
      await sandbox?.stop();
    });

    it('http://rebind.test:<port>/__sandbox/ui/ (a name rebound to 127.0.0.1) answers 403, and so do its assets', async () => {
      const page = await browser.newPage({ viewport: VIEWPORT });
      try {
        const res = await page.goto(`http://rebind.test:${sandbox.port}/__sandbox/ui/`);
        expect(res?.status()).toBe(403);
        expect(await res?.text()).toContain('HOST_NOT_ALLOWED');
        const assets = await page.evaluate(
          "Promise.all(['/__sandbox/ui/assets/main.js', '/__sandbox/ui/time', '/__sandbox/clock'].map((path) => fetch(path).then((r) => r.status)))",
        );
        expect(assets).toEqual([403, 403, 403]);
      } finally {
        await page.close();
      }
    });

    for (const pageHost of ['127.0.0.1', 'localhost']) {
      it(`a page from http://${pageHost}:<another port> cannot read the inspector nor drive the control plane`, async () => {
        const clockBefore = await control<{ nowMs: number }>(sandbox, 'GET', '/clock');
        const page = await browser.newPage();
        const seen: string[] = [];
        page.on('response', (res: Response) => {
          if (res.url().startsWith(sandbox.url)) seen.push(`${res.request().method()} ${new URL(res.url()).pathname} ${res.status()}`);
        });
        try {
          await page.goto(`http://${pageHost}:${otherPort}/`);
          await page.waitForFunction('document.title === "done"', null, UI_WAIT);
          const results = (await page.evaluate('window.results')) as Record<string, number | string>;
          // a CORS read of the page gets nothing (no CORS header; the sandbox refuses it besides); no-cors gets an opaque 0
          expect(results.ui).toBe('refused');
          expect(results.uiNoCors).toBe(0);
          // the JSON POST needs a preflight, which is refused; the no-cors ones reach the sandbox and get 403
          expect(results.advance).toBe('refused');
          expect(seen.filter((line) => !line.endsWith(' 403'))).toEqual([]);
          expect(seen.length).toBeGreaterThan(0);
        } finally {
          await page.close();
        }
        expect((await control<{ nowMs: number }>(sandbox, 'GET', '/clock')).nowMs).toBe(clockBefore.nowMs);
        expect(await control<unknown[]>(sandbox, 'GET', '/faults')).toEqual([]);
      });
    }

    describe('a sandbox with a control token (a non-loopback --host)', () => {
      const TOKEN = 'inspector-test-token-0123456789';
      let guarded: Sandbox;
      let base = '';
      beforeAll(async () => {
        guarded = await createSandbox({ port: 0, host: '0.0.0.0', controlToken: TOKEN, storage: 'memory', clock: 'manual' });
        base = `http://127.0.0.1:${guarded.port}`;
      });
      afterAll(() => guarded?.stop());

      it('opened with #token=…, the page works; the token leaves the address bar and is in no request URL', async () => {
        const page = await browser.newPage({ viewport: VIEWPORT });
        const errors: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error') errors.push(m.text());
        });
        page.on('pageerror', (e) => errors.push(e.message));
        const urls: string[] = [];
        const tokenHeaders: (string | undefined)[] = [];
        page.on('request', (req: Request) => {
          urls.push(req.url());
          if (new URL(req.url()).pathname === '/__sandbox/clock') tokenHeaders.push(req.headers()['x-sandbox-token']);
        });
        try {
          await page.goto(`${base}/__sandbox/ui/time#token=${TOKEN}`);
          const clock = await control<{ now: string }>({ url: base }, 'GET', '/clock', undefined, { 'x-sandbox-token': TOKEN });
          await page.getByTestId('clock-now').getByText(clock.now).waitFor(UI_WAIT);
          await page.getByRole('button', { name: 'Advance clock 1 minute' }).click();
          await expect
            .poll(async () => (await control<{ nowMs: number }>({ url: base }, 'GET', '/clock', undefined, { 'x-sandbox-token': TOKEN })).nowMs, UI_WAIT)
            .toBe(Date.parse(clock.now) + 60_000);
          expect(page.url()).toBe(`${base}/__sandbox/ui/time`);
          expect(urls.length).toBeGreaterThan(3);
          expect(urls.filter((url) => url.includes(TOKEN) || url.includes('token='))).toEqual([]);
          expect(tokenHeaders.length).toBeGreaterThan(0);
          expect(tokenHeaders.every((h) => h === TOKEN)).toBe(true);
          // a reload keeps working: the token is in sessionStorage
          await page.reload();
          await page
            .getByTestId('clock-now')
            .getByText(new Date(Date.parse(clock.now) + 60_000).toISOString())
            .waitFor(UI_WAIT);
          expect(errors).toEqual([]);
        } finally {
          await page.close();
        }
      });

      it('without the token, the page loads but every call is refused (401), and it says so', async () => {
        const page = await browser.newPage({ viewport: VIEWPORT });
        const statuses: number[] = [];
        page.on('response', (res: Response) => {
          if (new URL(res.url()).pathname.startsWith('/__sandbox/') && !new URL(res.url()).pathname.startsWith('/__sandbox/ui')) statuses.push(res.status());
        });
        try {
          const res = await page.goto(`${base}/__sandbox/ui/time`);
          expect(res?.status()).toBe(200);
          await page.getByRole('alert').filter({ hasText: '401' }).first().waitFor(UI_WAIT);
          expect(statuses.length).toBeGreaterThan(0);
          expect(statuses.every((s) => s === 401)).toBe(true);
          // a wrong token is refused the same way
          await page.goto(`${base}/__sandbox/ui/keys#token=not-the-token`);
          await page.getByRole('alert').filter({ hasText: '401' }).first().waitFor(UI_WAIT);
          expect(page.url()).toBe(`${base}/__sandbox/ui/keys`);
        } finally {
          await page.close();
        }
      });
    });
  },
);
