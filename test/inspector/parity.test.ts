import { describe, expect, it } from 'vitest';
import { createParityRecorder } from '../../src/parity/report.ts';
import type { Answer } from '../../src/parity/types.ts';
import { HAS_CHROMIUM, inspectorSuite, screenshot, BROWSER_TEST_TIMEOUT } from './browser.ts';
import { UI_WAIT } from './control-fetch.ts';

/** The Parity view: each difference, and the two answers of its first example side by side. */
describe.skipIf(!HAS_CHROMIUM)('the Parity view (chromium)', { timeout: BROWSER_TEST_TIMEOUT }, () => {
  const suite = inspectorSuite();
  const answer = (status: number, body: unknown): Answer => ({ status, headers: { 'x-request-id': 'req_x', 'content-type': 'application/json' }, body });

  it('says how to start a proxy when the sandbox is not one', async () => {
    suite.sandbox.context.parity.recorder = null;
    const { page } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/parity`);
    await page.getByTestId('parity-not-proxy').waitFor(UI_WAIT);
    expect(await page.getByTestId('parity-not-proxy').textContent()).toContain('sandbox proxy --target <url>');
    await page.close();
  });

  it("lists the differences, the unknown ids apart, and shows a difference's two answers side by side", async () => {
    const recorder = createParityRecorder({ routes: suite.sandbox.context.routes });
    suite.sandbox.context.parity.recorder = recorder;
    for (let i = 0; i < 2; i++)
      recorder.record({
        requestId: `req_brand_${i}`,
        method: 'GET',
        urlPath: `/v1/products/prod_${i}`,
        target: answer(200, { data: { id: 'prod_t', brand: 'Borealis' } }),
        sandbox: answer(200, { data: { id: 'prod_s' } }),
        learned: false,
        unknownIds: [],
      });
    recorder.record({
      requestId: 'req_unknown',
      method: 'GET',
      urlPath: '/v1/people/ppl_1',
      target: answer(200, { data: { id: 'ppl_1' } }),
      sandbox: null,
      learned: false,
      unknownIds: ['ppl_1'],
    });
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/parity`);
    const table = page.getByRole('table', { name: 'Differences', exact: true });
    const row = table.getByTestId('parity-difference');
    await row.first().waitFor(UI_WAIT);
    expect(await row.count()).toBe(1);
    expect((await row.textContent())!.replace(/\s+/g, ' ')).toBe('2missing-fieldGET /v1/products/{id}data.brandstringabsentreq_brand_0');
    expect(await page.getByTestId('parity-summary').textContent()).toBe('2 of 3 requests compared: 1 difference');
    await page.getByRole('table', { name: 'Unknown ids' }).getByText('ppl_1').waitFor(UI_WAIT);

    await row.click();
    const target = page.getByTestId('parity-target');
    await target.getByText('"brand": "Borealis"').waitFor(UI_WAIT);
    expect(await page.getByTestId('parity-sandbox').textContent()).toContain('"id": "prod_s"');
    expect(await page.getByTestId('parity-sandbox').textContent()).not.toContain('brand');
    await screenshot(page, 'parity');

    // an unknown id's example has no sandbox answer
    await page.getByRole('table', { name: 'Unknown ids' }).getByTestId('parity-difference').click();
    await page
      .getByTestId('parity-sandbox')
      .getByText(/no answer/)
      .waitFor(UI_WAIT);

    // Clear asks again, then the report starts from zero
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    expect(recorder.report().requests).toBe(3);
    await page.getByRole('button', { name: 'Clear the parity report' }).click();
    await page.getByText('no drift so far').waitFor(UI_WAIT);
    expect(recorder.report()).toEqual({ requests: 0, compared: 0, differences: [], omitted: 0, notCompared: [] });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lists the requests not compared, with their reason, operation, count and detail', async () => {
    const recorder = createParityRecorder({ routes: suite.sandbox.context.routes });
    suite.sandbox.context.parity.recorder = recorder;
    const same = answer(200, { data: { id: 'prod_1' } });
    recorder.record({ requestId: 'req_same', method: 'GET', urlPath: '/v1/products/prod_1', target: same, sandbox: same, learned: false, unknownIds: [] });
    for (let i = 0; i < 2; i++)
      recorder.record({
        requestId: `req_learned_${i}`,
        method: 'GET',
        urlPath: `/v1/people/ppl_${i}`,
        target: answer(200, { data: { id: `ppl_${i}` } }),
        sandbox: answer(404, { error: 'Person not found' }),
        learned: true,
        unknownIds: [],
      });
    const { page, errors } = await suite.chrome.open(`${suite.sandbox.url}/__sandbox/ui/parity`);
    const row = page.getByRole('table', { name: 'Not compared' }).getByTestId('parity-not-compared');
    await row.first().waitFor(UI_WAIT);
    expect(await row.count()).toBe(1);
    expect((await row.textContent())!.replace(/\s+/g, ' ')).toBe(
      "2learnedGET /v1/people/{id}learned: the sandbox did not hold the record and learned it from the target's answer; the calls after it are comparedreq_learned_0",
    );
    expect(await page.getByTestId('parity-summary').textContent()).toBe('1 of 3 requests compared: no drift');
    expect(errors).toEqual([]);
    await page.close();
  });
});
