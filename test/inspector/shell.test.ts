import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { INSPECTOR_CSP } from '../../src/control/inspector.ts';
import { HAS_CHROMIUM, launchInspectorBrowser, type InspectorBrowser, BROWSER_TEST_TIMEOUT } from './browser.ts';
import { ensureInspectorBuilt } from './bundle.ts';

/** The inspector's page, served by the sandbox at /__sandbox/ui/ (docs/inspector.md). */
let sandbox: Sandbox;
beforeAll(async () => {
  await ensureInspectorBuilt();
  sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
});
afterAll(() => sandbox?.stop());

describe('the inspector is served', () => {
  it('at /__sandbox/ui/, with a CSP that loads nothing but the sandbox', async () => {
    const res = await fetch(`${sandbox.url}/__sandbox/ui/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(INSPECTOR_CSP);
    expect(INSPECTOR_CSP).toContain("default-src 'self'");
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).toContain('/__sandbox/ui/assets/main.js');
    expect(html).not.toMatch(/<script>(?!<\/script>)/); // no inline script: the CSP would block it
  });

  it('a deep link answers the page; /__sandbox/ui redirects; an asset that does not exist is 404', async () => {
    const deep = await fetch(`${sandbox.url}/__sandbox/ui/data/bookings`);
    expect(deep.status).toBe(200);
    expect(await deep.text()).toContain('<div id="root">');
    const bare = await fetch(`${sandbox.url}/__sandbox/ui`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/__sandbox/ui/');
    expect((await fetch(`${sandbox.url}/__sandbox/ui/assets/nothing.js`)).status).toBe(404);
    expect((await fetch(`${sandbox.url}/__sandbox/ui/assets/..%2f..%2fpackage.json`)).status).toBe(404);
    const js = await fetch(`${sandbox.url}/__sandbox/ui/assets/main.js`);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('is not in the OpenAPI document (static files, not an API)', async () => {
    const doc = (await (await fetch(`${sandbox.url}/__sandbox/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((path) => path.includes('/ui'))).toEqual([]);
  });
});

describe.skipIf(!HAS_CHROMIUM)('the inspector in a real browser (chromium)', { timeout: BROWSER_TEST_TIMEOUT }, () => {
  let chrome: InspectorBrowser;
  beforeAll(async () => {
    chrome = await launchInspectorBrowser();
  });
  afterAll(() => chrome?.close());

  it('opens on the requests view, lists the workspaces, and logs no console error', async () => {
    const { page, errors } = await chrome.open(`${sandbox.url}/__sandbox/ui/`);
    await page.getByRole('link', { name: 'Requests' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/__sandbox/ui/requests');
    const options = await page.getByLabel('Workspace', { exact: true }).locator('option').allTextContents();
    // each name once: "Borealis Adventures (sandbox)" already says its mode
    expect(options).toEqual(['Aurora Tours (live)', 'Borealis Adventures (sandbox)']);
    expect(errors).toEqual([]);
    await page.close();
  });
});
