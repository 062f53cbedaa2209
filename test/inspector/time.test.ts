import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../src/index.ts';
import { HAS_CHROMIUM, inspectorSuite, screenshot, BROWSER_TEST_TIMEOUT } from './browser.ts';
import { control, UI_WAIT } from './control-fetch.ts';

/** The Time & state view: what the page does is what the control plane then reports. */
describe.skipIf(!HAS_CHROMIUM)('the Time & state view (chromium)', { timeout: BROWSER_TEST_TIMEOUT }, () => {
  const suite = inspectorSuite();

  it('advancing the clock from the page moves GET /__sandbox/clock; set-to jumps to the time given', async () => {
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/time`);
    const before = await control<{ nowMs: number; now: string; mode: string }>(suite.sandbox, 'GET', '/clock');
    await page.getByTestId('clock-now').getByText(before.now).waitFor(UI_WAIT);
    await page.getByText('manual clock: time moves only when advanced').waitFor(UI_WAIT);

    await page.getByRole('button', { name: 'Advance clock 1 hour' }).click();
    await expect.poll(async () => (await control<{ nowMs: number }>(suite.sandbox, 'GET', '/clock')).nowMs, UI_WAIT).toBe(before.nowMs + 3_600_000);
    await page
      .getByTestId('clock-now')
      .getByText(new Date(before.nowMs + 3_600_000).toISOString())
      .waitFor(UI_WAIT);

    await page.getByRole('button', { name: 'Advance clock 1 day' }).click();
    await expect
      .poll(async () => (await control<{ nowMs: number }>(suite.sandbox, 'GET', '/clock')).nowMs, UI_WAIT)
      .toBe(before.nowMs + 3_600_000 + 86_400_000);

    await page.getByLabel('Advance by', { exact: true }).fill('1h30m');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await expect
      .poll(async () => (await control<{ nowMs: number }>(suite.sandbox, 'GET', '/clock')).nowMs, UI_WAIT)
      .toBe(before.nowMs + 3_600_000 + 86_400_000 + 5_400_000);

    // a time a little later than now (a jump of years would run years of timers)
    const target = new Date(before.nowMs + 3 * 86_400_000 + 4_005).toISOString();
    await page.getByLabel('Set clock to').fill(target);
    await page.getByRole('button', { name: 'Set to' }).click();
    await expect.poll(async () => (await control<{ now: string }>(suite.sandbox, 'GET', '/clock')).now, UI_WAIT).toBe(target);
    await page.getByTestId('clock-now').getByText(target).waitFor(UI_WAIT);

    // a workspace's own clock: the page's, the sandbox's default workspace
    const ws = suite.sandbox.defaultWorkspace!.id;
    const wsBefore = await control<{ offsetMs: number }>(suite.sandbox, 'GET', `/workspaces/${ws}/clock`);
    await page.getByRole('button', { name: 'Advance workspace clock 1 minute' }).click();
    await expect
      .poll(async () => (await control<{ offsetMs: number }>(suite.sandbox, 'GET', `/workspaces/${ws}/clock`)).offsetMs, UI_WAIT)
      .toBe(wsBefore.offsetMs + 60_000);

    // a bad custom duration is one line, not a crash
    await page.getByLabel('Advance by', { exact: true }).fill('soon');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'invalid duration "soon"' }).waitFor(UI_WAIT);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('fault rules added and removed in the page are what GET /__sandbox/faults reports', async () => {
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/time`);
    await page.getByRole('table', { name: 'Fault rules' }).getByText('no fault rule').waitFor(UI_WAIT);
    await page.getByLabel('Fault method').selectOption('GET');
    await page.getByLabel('Fault path').fill('/v1/products');
    await page.getByLabel('Fault status').fill('503');
    await page.getByLabel('Fault times').fill('2');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await expect
      .poll(
        async () =>
          (await control<{ method?: string; path?: string; status?: number; times?: number }[]>(suite.sandbox, 'GET', '/faults')).map((r) => [
            r.method,
            r.path,
            r.status,
            r.times,
          ]),
        UI_WAIT,
      )
      .toEqual([['GET', '/v1/products', 503, 2]]);
    const [rule] = await control<{ id: string }[]>(suite.sandbox, 'GET', '/faults');
    const row = page.getByTestId(`fault-${rule!.id}`);
    await row.waitFor(UI_WAIT);
    await row.getByRole('button', { name: `Remove fault ${rule!.id}` }).click();
    await row.getByRole('button', { name: `Confirm remove ${rule!.id}` }).click();
    await expect.poll(async () => (await control<unknown[]>(suite.sandbox, 'GET', '/faults')).length, UI_WAIT).toBe(0);
    await page.getByRole('table', { name: 'Fault rules' }).getByText('no fault rule').waitFor(UI_WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a delivery rule added in the page is listed beside the request rules, and the delivery it holds says so in the Webhooks view', async () => {
    const receiver = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const ws = suite.sandbox.defaultWorkspace!.id;
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      await control(suite.sandbox, 'POST', '/webhook-subscriptions', { workspaceId: ws, url, events: ['booking.created'] });
      await control(suite.sandbox, 'POST', '/faults', { path: '/v1/products', status: 503 });
      const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/time`);
      await page.getByLabel('Delivery rule action').selectOption('reorder');
      await page.getByLabel('Delivery rule duration').fill('1h');
      await page.getByLabel('Delivery rule event').fill('booking.created');
      await page.getByRole('button', { name: 'Add delivery fault' }).click();
      await expect
        .poll(
          async () =>
            (await control<{ target: string; reorderMs?: number; event?: string }[]>(suite.sandbox, 'GET', '/faults')).map((r) => [
              r.target,
              r.reorderMs,
              r.event,
            ]),
          UI_WAIT,
        )
        .toEqual([
          ['request', undefined, undefined],
          ['delivery', 3_600_000, 'booking.created'],
        ]);
      const rules = await control<{ id: string }[]>(suite.sandbox, 'GET', '/faults');
      const row = page.getByTestId(`fault-${rules[1]!.id}`);
      await row.getByText('deliveries', { exact: true }).waitFor(UI_WAIT);
      await row.getByText('reorder: hold 1h').waitFor(UI_WAIT);
      await page.getByTestId(`fault-${rules[0]!.id}`).getByText('requests', { exact: true }).waitFor(UI_WAIT);

      const { deliveryIds } = await control<{ deliveryIds: string[] }>(suite.sandbox, 'POST', '/events', { workspaceId: ws, type: 'booking.created' });
      await page.goto(`${suite.sandbox.url}/__sandbox/ui/webhooks`);
      await page.getByTestId(`delivery-fault-${deliveryIds[0]}`).getByText(`held 1h by ${rules[1]!.id}`).waitFor(UI_WAIT);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await control(suite.sandbox, 'DELETE', '/faults');
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('a snapshot taken in the page is listed by the control plane, and restoring it (after a confirmation) brings its state back', async () => {
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/time`);
    const ws = suite.sandbox.workspaces[0]!.id;
    const keysOf = async () => (await control<{ keys: unknown[] }>(suite.sandbox, 'GET', `/workspaces/${ws}`)).keys.length;
    const keysBefore = await keysOf();
    await page.getByLabel('Snapshot name').fill('before-key');
    await page.getByRole('button', { name: 'Take snapshot' }).click();
    await expect.poll(async () => (await control<{ name: string }[]>(suite.sandbox, 'GET', '/snapshots')).map((s) => s.name), UI_WAIT).toEqual(['before-key']);
    const row = page.getByTestId('snapshot-before-key');
    await row.waitFor(UI_WAIT);

    await control(suite.sandbox, 'POST', `/workspaces/${ws}/keys`, { name: 'after the snapshot' });
    expect(await keysOf()).toBe(keysBefore + 1);
    await row.getByRole('button', { name: 'Restore before-key' }).click();
    // nothing happens before the confirmation
    expect(await keysOf()).toBe(keysBefore + 1);
    await row.getByRole('button', { name: 'Confirm restore of before-key' }).click();
    await expect.poll(keysOf, UI_WAIT).toBe(keysBefore);
    await page.getByRole('status').filter({ hasText: 'restored snapshot "before-key"' }).waitFor(UI_WAIT);

    await row.getByRole('button', { name: 'Delete before-key' }).click();
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect((await control<unknown[]>(suite.sandbox, 'GET', '/snapshots')).length).toBe(1);
    await row.getByRole('button', { name: 'Delete before-key' }).click();
    await row.getByRole('button', { name: 'Confirm delete of before-key' }).click();
    await expect.poll(async () => (await control<unknown[]>(suite.sandbox, 'GET', '/snapshots')).length, UI_WAIT).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('reset asks first, then puts the clock back to its start; rate-limit buckets show up live', async () => {
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/time`);
    await page.getByRole('table', { name: 'Rate-limit buckets' }).waitFor(UI_WAIT);
    // the table is drawn before the page's stream may be connected: a request made before then sends the
    // page no event, so requests are made until one's bucket shows (each within a few seconds of it)
    const shown = async () => {
      const res = await fetch(`${suite.sandbox.url}/v1/products?limit=1`, {
        headers: { authorization: `Bearer ${suite.sandbox.workspaces[0]!.keys[0]!.key}` },
      });
      expect(res.status).toBe(200);
      const bucket = page
        .getByRole('table', { name: 'Rate-limit buckets' })
        .getByText(`${res.headers.get('x-ratelimit-remaining')} / ${res.headers.get('x-ratelimit-limit')}`)
        .first();
      return bucket.waitFor({ timeout: 5_000 }).then(
        () => true,
        () => false,
      );
    };
    await expect.poll(shown, { timeout: 60_000, interval: 10 }).toBe(true);

    // a rule to show in the screenshot
    await page.getByLabel('Fault path').fill('/v1/bookings/*');
    await page.getByLabel('Fault status').fill('429');
    await page.getByLabel('Fault times').fill('3');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await page.getByRole('table', { name: 'Fault rules' }).getByText('answer 429').waitFor(UI_WAIT);
    await screenshot(page, 'time');

    await control(suite.sandbox, 'POST', '/clock/advance', { ms: 7_200_000 });
    await page.getByRole('button', { name: 'Reset sandbox' }).click();
    await page.getByRole('button', { name: 'Confirm reset of the whole sandbox' }).click();
    await page.getByRole('status').filter({ hasText: 'back to its fixtures' }).waitFor(UI_WAIT);
    const after = await control<{ now: string }>(suite.sandbox, 'GET', '/clock');
    await page.getByTestId('clock-now').getByText(after.now).waitFor(UI_WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });
  it('on a real clock: the mode says so, advancing adds an offset, and setting it backwards is one line (400)', async () => {
    const real = await createSandbox({ port: 0, storage: 'memory', clock: 'real' });
    try {
      const { page, errors } = await suite.chrome.open(`${real.url}/__sandbox/ui/time`);
      await page.getByText('real clock: it follows the wall clock').waitFor(UI_WAIT);
      const before = await control<{ nowMs: number; mode: string }>(real, 'GET', '/clock');
      expect(before.mode).toBe('real');
      await page.getByRole('button', { name: 'Advance clock 1 day' }).click();
      await expect.poll(async () => (await control<{ nowMs: number }>(real, 'GET', '/clock')).nowMs, UI_WAIT).toBeGreaterThanOrEqual(before.nowMs + 86_400_000);
      await page.getByLabel('Set clock to').fill('2001-01-01T00:00:00Z');
      await page.getByRole('button', { name: 'Set to' }).click();
      await page.getByRole('alert').filter({ hasText: /^400 / }).waitFor(UI_WAIT);
      // the failed call is shown in the page, not thrown: the console's only error is the browser's own note of the 400
      expect(errors.filter((e) => !/status of 400/.test(e))).toEqual([]);
      await page.close();
    } finally {
      await real.stop();
    }
  });
});
