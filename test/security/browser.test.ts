import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { missingChromium } from '../setup/chromium.ts';
import { HAS_CHROMIUM, launchChromium } from '../inspector/browser.ts';

/**
 * A real browser (Debian's chromium, driven by
 * playwright-core: no browser download) loads a page from another origin whose
 * script calls the sandbox as any web page could, and the reset does not
 * happen. Also DNS rebinding: a name that resolves to 127.0.0.1
 * (`--host-resolver-rules`) gets a 403 from the sandbox, so a script served
 * under it reads nothing. .ci/run installs chromium when it is missing.
 */
const title = HAS_CHROMIUM ? 'a web page in a real browser (chromium)' : `a web page in a real browser: SKIPPED, ${missingChromium()}`;

/** What the attacker's page does: every request a page can send without a preflight, then the title says it is done. */
function attackerPage(sandboxUrl: string, departureId: string, workspaceId: string): string {
  const script = `
    const target = ${JSON.stringify(sandboxUrl)};
    const quiet = (p) => p.then(() => undefined, () => undefined);
    (async () => {
      await quiet(fetch(target + '/__sandbox/reset', { method: 'POST', mode: 'no-cors' }));
      await quiet(fetch(target + '/__sandbox/reset', { method: 'POST', mode: 'no-cors', body: '' }));
      await quiet(fetch(target + '/__sandbox/workspaces', { method: 'POST', mode: 'no-cors', body: '{}' }));
      await quiet(fetch(target + '/__sandbox/workspaces/${workspaceId}/keys', { method: 'POST', mode: 'no-cors', body: JSON.stringify({ name: 'from a page' }) }));
      await quiet(fetch(target + '/__sandbox/state').then((r) => r.text()).then((t) => { window.stolen = t; }));
      // /v1: the documented fixture key is public, but a no-cors request drops Authorization, and a cors one needs a preflight
      const booking = JSON.stringify({ departureId: ${JSON.stringify(departureId)}, adults: 1 });
      await quiet(fetch(target + '/v1/bookings', { method: 'POST', mode: 'no-cors', headers: { authorization: 'Bearer ${KEYS.liveFull}' }, body: booking }));
      await quiet(fetch(target + '/v1/bookings', { method: 'POST', headers: { authorization: 'Bearer ${KEYS.liveFull}', 'content-type': 'application/json' }, body: booking }));
      // a form post, into a frame so that the page stays
      const frame = document.querySelector('iframe');
      const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
      document.querySelector('form').submit();
      await loaded;
      document.title = 'done';
    })();`;
  return `<!doctype html><title>attacker</title><iframe name="sink"></iframe>
    <form method="POST" action="${sandboxUrl}/__sandbox/reset" target="sink"><input name="x" value="1"></form>
    <script>${script}</script>`;
}

describe.skipIf(!HAS_CHROMIUM)(title, () => {
  let sandbox: Sandbox;
  let attacker: Server;
  let browser: Browser;
  let attackerPort = 0;
  let client: ControlClient;
  const liveWorkspace = () => sandbox.workspaces.find((w) => w.mode === 'live')!.id;

  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
    client = new ControlClient({ url: sandbox.url });
    const departureId = sandbox.store.list<{ id: string }>('departures', liveWorkspace())[0]!.id;
    attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attackerPage(sandbox.url, departureId, liveWorkspace())));
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerPort = (attacker.address() as AddressInfo).port;
    browser = await launchChromium(['attacker.test']);
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await sandbox?.stop();
  });

  /** A booking made before the page runs: a reset would take it away. */
  async function book(): Promise<string> {
    for (const departure of sandbox.store.list<{ id: string }>('departures', liveWorkspace())) {
      const res = await fetch(`${sandbox.url}/v1/bookings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
        body: JSON.stringify({ departureId: departure.id, adults: 1 }),
      });
      if (res.status === 201) return ((await res.json()) as { data: { id: string } }).data.id;
    }
    throw new Error('no departure of the live workspace could be booked');
  }

  // 127.0.0.1 on another port is the same site (Sec-Fetch-Site: same-site, another Origin); localhost is another site
  for (const pageHost of ['127.0.0.1', 'localhost']) {
    it(`a page from http://${pageHost}:<another port> resets nothing, mints nothing, books nothing`, async () => {
      const bookingId = await book();
      const keysBefore = (await client.workspaces()).flatMap((w) => w.keys).length;
      const workspacesBefore = (await client.workspaces()).length;
      const bookingsBefore = sandbox.store.list('bookings', liveWorkspace()).length;
      const page = await browser.newPage();
      const seen: string[] = [];
      page.on('response', (res: Response) => {
        if (res.url().startsWith(sandbox.url)) seen.push(`${res.request().method()} ${new URL(res.url()).pathname} ${res.status()}`);
      });
      try {
        await page.goto(`http://${pageHost}:${attackerPort}/`);
        await page.waitForFunction('document.title === "done"', null, { timeout: 30_000 }); // page code as text: no DOM types here
        // the requests reached the sandbox, and were refused
        expect(seen).toContain('POST /__sandbox/reset 403');
        expect(seen.filter((line) => line.startsWith('POST /__sandbox/reset')).length).toBeGreaterThanOrEqual(3); // two fetches and the form
        expect(seen.filter((line) => line.includes('/__sandbox/') && !line.endsWith(' 403'))).toEqual([]);
        expect(await page.evaluate('window.stolen ?? null')).toBeNull();
      } finally {
        await page.close();
      }
      // over the control client: the booking is still there, no key and no workspace were made
      const state = JSON.parse(await client.exportState()) as { collections: { bookings: Record<string, Record<string, unknown>> } };
      expect(state.collections.bookings[liveWorkspace()]?.[bookingId]).toBeDefined();
      expect((await client.workspaces()).flatMap((w) => w.keys).length).toBe(keysBefore);
      expect((await client.workspaces()).length).toBe(workspacesBefore);
      expect(sandbox.store.list('bookings', liveWorkspace()).length).toBe(bookingsBefore);
    });
  }

  it('a name rebound to 127.0.0.1 gets 403 from the sandbox, and a script under it reads nothing', async () => {
    const page = await browser.newPage();
    try {
      const res = await page.goto(`http://attacker.test:${sandbox.port}/__sandbox/state`);
      expect(res?.status()).toBe(403);
      expect(await res?.text()).toContain('HOST_NOT_ALLOWED');
      // the page is now same-origin with the sandbox's port: what its script gets
      const answers = await page.evaluate(
        "Promise.all(['/__sandbox/state', '/__sandbox/workspaces', '/v1/products'].map((path) => fetch(path).then((r) => r.status)))",
      );
      expect(answers).toEqual([403, 403, 403]);
    } finally {
      await page.close();
    }
  });
});
