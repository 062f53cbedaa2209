import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, inspectorSuite, screenshot, BROWSER_TEST_TIMEOUT } from './browser.ts';
import { control, UI_WAIT } from './control-fetch.ts';

/** The Keys view: a key created in the page is shown whole once; revoking it in the page shuts /v1 to it. */
describe.skipIf(!HAS_CHROMIUM)('the Keys view (chromium)', { timeout: BROWSER_TEST_TIMEOUT }, () => {
  const suite = inspectorSuite();
  const v1 = (key: string) => fetch(`${suite.sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${key}` } });

  it('creating a key in the page shows it whole once, and not again after a reload', async () => {
    // the page opens on the sandbox's default workspace
    const ws = suite.sandbox.workspaces.find((w) => w.id === suite.sandbox.defaultWorkspace!.id)!;
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/keys`);
    const table = page.getByRole('table', { name: 'Workspace keys' });
    await table.getByText(ws.keys[0]!.name, { exact: true }).first().waitFor(UI_WAIT);
    await page.getByLabel('Key name').fill('from the inspector');
    await page.getByRole('button', { name: 'Create key', exact: true }).click();
    const shown = page.getByTestId('new-key');
    await shown.waitFor(UI_WAIT);
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^tcs_(live|test)_\S{20,}$/);
    // the control plane has it, under its prefix only, and it works
    const listed = (await control<{ keys: { name: string; keyPrefix: string; key: string | null }[] }>(suite.sandbox, 'GET', `/workspaces/${ws.id}`)).keys.find(
      (k) => k.name === 'from the inspector',
    )!;
    expect(key.startsWith(listed.keyPrefix)).toBe(true);
    expect(listed.key).toBeNull();
    expect((await v1(key)).status).toBe(200);
    await table.getByText('from the inspector').waitFor(UI_WAIT);
    expect(await page.content()).toContain(key);

    await page.reload();
    await table.getByText('from the inspector').waitFor(UI_WAIT);
    await table.getByText(`${listed.keyPrefix}…`).waitFor(UI_WAIT);
    expect(await page.getByTestId('new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('revoking a key in the page makes the next request with it 401', async () => {
    const ws = suite.sandbox.defaultWorkspace!;
    const created = await control<{ id: string; key: string; keyPrefix: string }>(suite.sandbox, 'POST', `/workspaces/${ws.id}/keys`, {
      name: 'to revoke',
      scopes: ['products:read'],
    });
    expect((await v1(created.key)).status).toBe(200);
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/keys`);
    const row = page.getByTestId(`key-${created.id}`);
    await row.waitFor(UI_WAIT);
    // its last use, from the request log
    await row.getByText(/^\d{4}-\d\d-\d\dT/).waitFor(UI_WAIT);
    await row.getByRole('button', { name: `Revoke ${created.keyPrefix}` }).click();
    expect((await v1(created.key)).status).toBe(200); // not before the confirmation
    await row.getByRole('button', { name: `Confirm revoke ${created.keyPrefix}` }).click();
    await row.getByText('revoked', { exact: true }).waitFor(UI_WAIT);
    expect((await v1(created.key)).status).toBe(401);

    // organization keys: listed with their organization
    await page.getByRole('button', { name: 'Create organization key' }).click();
    await page.getByTestId('new-key').waitFor(UI_WAIT);
    await expect.poll(async () => (await control<unknown[]>(suite.sandbox, 'GET', `/org-keys?workspaceId=${ws.id}`)).length, UI_WAIT).toBeGreaterThan(0);
    await page.getByRole('button', { name: 'Done' }).click();
    await screenshot(page, 'keys');
    expect(errors).toEqual([]);
    await page.close();
  });
});
