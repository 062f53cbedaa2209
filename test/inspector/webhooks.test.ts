import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, inspectorSuite, screenshot, BROWSER_TEST_TIMEOUT } from './browser.ts';
import { control, UI_WAIT } from './control-fetch.ts';

/**
 * The Webhooks view: subscriptions, an event triggered from the
 * page, its delivery with every attempt, and Replay making the receiver get
 * it again with the same webhook-id.
 */
describe.skipIf(!HAS_CHROMIUM)('the Webhooks view (chromium)', { timeout: BROWSER_TEST_TIMEOUT }, () => {
  const suite = inspectorSuite();
  let receiver: Server;
  const received: IncomingHttpHeaders[] = [];
  let receiverUrl = '';
  beforeAll(async () => {
    // the first request fails (a retry gets scheduled on the sandbox clock), the others succeed
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.headers);
        res
          .writeHead(received.length === 1 ? 500 : 200, { 'content-type': 'application/json' })
          .end(received.length === 1 ? '{"error":"down for a moment"}' : '{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it('an event triggered in the page is delivered; its attempts, next retry, payload and signature headers show; Replay delivers it again with the same webhook-id', async () => {
    const ws = suite.sandbox.defaultWorkspace!.id; // the workspace the page opens on
    const { subscription } = await control<{ subscription: { id: string } }>(suite.sandbox, 'POST', '/webhook-subscriptions', {
      workspaceId: ws,
      url: receiverUrl,
      events: ['booking.created'],
    });
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/webhooks`);
    const subs = page.getByRole('table', { name: 'Subscriptions' });
    await subs.getByText(receiverUrl).waitFor(UI_WAIT);
    await subs.getByText('active', { exact: true }).waitFor(UI_WAIT);

    await page.getByLabel('Event type', { exact: true }).selectOption('booking.created');
    await page.getByRole('button', { name: 'Trigger' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /booking\.created evt_\S+ emitted: 1 delivery/ })
      .waitFor(UI_WAIT);
    await expect.poll(() => received.length, UI_WAIT).toBe(1);

    const [delivery] = await control<{ id: string; nextAttemptAt: string | null; status: string }[]>(
      suite.sandbox,
      'GET',
      `/deliveries?subscriptionId=${subscription.id}`,
    );
    expect(delivery!.status).toBe('pending');
    const row = page.getByTestId(`delivery-${delivery!.id}`);
    await row.getByText('pending').waitFor(UI_WAIT);
    await row.click();
    const detail = page.getByRole('region', { name: `Delivery ${delivery!.id}` });
    await detail.getByTestId('next-retry').getByText(`${delivery!.nextAttemptAt} (sandbox clock)`).waitFor(UI_WAIT);
    await detail.getByTestId('attempt-1').getByText('500').waitFor(UI_WAIT);
    // the payload and the headers the receiver checks the signature with
    await detail
      .getByRole('table', { name: 'Request headers' })
      .getByText(received[0]!['webhook-id'] as string)
      .waitFor(UI_WAIT);
    await detail
      .getByRole('table', { name: 'Request headers' })
      .getByText(received[0]!['webhook-signature'] as string)
      .waitFor(UI_WAIT);
    await detail.getByLabel('Payload').getByText('"booking.created"').waitFor(UI_WAIT);

    // the retry falls due on the sandbox clock; the page follows through the stream
    await control(suite.sandbox, 'POST', '/clock/advance', { ms: 60_000 });
    await expect.poll(() => received.length, UI_WAIT).toBe(2);
    await detail.getByTestId('attempt-2').getByText('200').waitFor(UI_WAIT);
    await detail.getByText('succeeded', { exact: true }).waitFor(UI_WAIT);

    await detail.getByRole('button', { name: 'Replay' }).click();
    await expect.poll(() => received.length, UI_WAIT).toBe(3);
    expect(received[2]!['webhook-id']).toBe(received[0]!['webhook-id']);
    await detail.getByTestId('attempt-3').getByText('replay').waitFor(UI_WAIT);
    await screenshot(page, 'webhooks');

    // pause and resume from the page: what the control plane then reports
    const activeOf = async () =>
      (
        await control<{ subscription: { active: boolean } }>(
          suite.sandbox,
          'GET',
          `/webhook-subscriptions/by-url?workspaceId=${ws}&url=${encodeURIComponent(receiverUrl)}`,
        )
      ).subscription.active;
    await subs.getByRole('button', { name: `Pause ${subscription.id}` }).click();
    await expect.poll(activeOf, UI_WAIT).toBe(false);
    await subs.getByRole('button', { name: `Resume ${subscription.id}` }).click();
    await expect.poll(activeOf, UI_WAIT).toBe(true);
    await subs.getByRole('button', { name: `Pause ${subscription.id}` }).waitFor(UI_WAIT);
    expect(errors).toEqual([]);
    await page.close();
  });
});
