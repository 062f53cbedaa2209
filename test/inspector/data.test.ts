import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, inspectorSuite, screenshot, BROWSER_TEST_TIMEOUT } from './browser.ts';

/**
 * The inspector's Data view (docs/inspector.md, "Data") in a real Chromium: a
 * workspace's collections, a page of records, a record with its related records as links,
 * search, and the first page of a 100k-row collection.
 */
const WAIT = { timeout: 20_000 };
const suite = inspectorSuite();

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
async function control(path: string, init?: { method: string; body: unknown }): Promise<Json> {
  const res = await fetch(
    `${suite.sandbox.url}/__sandbox${path}`,
    init ? { method: init.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) } : undefined,
  );
  expect(res.status, `${path}: ${res.status}`).toBeLessThan(300);
  return ((await res.json()) as { data: Json }).data;
}

const ui = (path: string) => `${suite.sandbox.url}/__sandbox/ui${path}`;
const table = (page: Page, collection: string) => page.getByRole('table', { name: `${collection} records` });

describe.skipIf(!HAS_CHROMIUM)('the Data view (chromium)', { timeout: BROWSER_TEST_TIMEOUT }, () => {
  it("lists a workspace's collections; its departures are browsable and a departure's page shows its id", async () => {
    const ws = suite.sandbox.workspaces.find((w) => w.mode === 'live')!;
    const { page, errors } = await suite.chrome.open(ui(`/data?workspace=${ws.id}`));
    const nav = page.getByRole('navigation', { name: 'Collections' });
    await nav.getByRole('link', { name: /^departures/ }).click();
    await table(page, 'departures').waitFor(WAIT);
    expect(new URL(page.url()).pathname).toBe('/__sandbox/ui/data/departures');
    expect(new URL(page.url()).searchParams.get('workspace')).toBe(ws.id);
    const departures = await control(`/workspaces/${ws.id}/collections/departures?limit=100&order=newest`); // the view shows the newest first
    expect(await table(page, 'departures').locator('tbody tr').count()).toBe(Math.min(100, departures.total));
    const first = departures.rows[0].id as string;
    await table(page, 'departures').getByRole('link', { name: first }).click();
    await expect.poll(() => page.getByTestId('record-id').textContent(), WAIT).toBe(first);
    expect(new URL(page.url()).pathname).toBe(`/__sandbox/ui/data/departures/${first}`);
    expect(await page.getByLabel('Record JSON').textContent()).toContain(`"id": "${first}"`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a booking's page links its departure, its passengers and its people (screenshots: data, data-record)", async () => {
    const ws = suite.sandbox.workspaces.find((w) => w.mode === 'live')!;
    const { page, errors } = await suite.chrome.open(ui(`/data/bookings?workspace=${ws.id}`));
    await table(page, 'bookings').waitFor(WAIT);
    const bookings = await control(`/workspaces/${ws.id}/collections/bookings?limit=100&order=newest`);
    await expect
      .poll(() => page.getByTestId('page-range').textContent(), WAIT)
      .toBe(`1–${Math.min(100, bookings.total)} of ${bookings.total.toLocaleString('en')}`);
    await screenshot(page, 'data');

    // a booking with passengers
    let record: Json | null = null;
    for (const row of bookings.rows) {
      const found = await control(`/workspaces/${ws.id}/collections/bookings/${row.id}`);
      if (found.related.some((r: Json) => r.collection === 'passengers' && r.count > 0) && found.links.some((l: Json) => l.collection === 'departures')) {
        record = found;
        break;
      }
    }
    expect(record, 'a fixture booking with passengers').not.toBeNull();
    const id = record!.record.id as string;
    await table(page, 'bookings').getByRole('link', { name: id }).click();
    await expect.poll(() => page.getByTestId('record-id').textContent(), WAIT).toBe(id);
    const pointsTo = page.getByRole('list', { name: 'Points to' });
    const departure = record!.links.find((l: Json) => l.collection === 'departures');
    await pointsTo.getByRole('link', { name: new RegExp(departure.id) }).waitFor(WAIT);
    for (const link of record!.links.filter((l: Json) => l.collection === 'people' && l.exists)) {
      expect(await pointsTo.getByRole('link', { name: new RegExp(link.id) }).count()).toBeGreaterThan(0);
    }
    const passengers = page.getByRole('list', { name: 'Pointed to by' }).getByRole('link', { name: /passengers/ });
    expect(await passengers.count()).toBe(1);
    // the passengers one by one, each a link to its page
    const passengerIds = (await control(`/workspaces/${ws.id}/collections/passengers?q=${id}`)).rows
      .filter((p: Json) => p.bookingId === id)
      .map((p: Json) => p.id);
    const listed = page.getByRole('list', { name: 'passengers by bookingId' }).getByRole('link');
    await expect.poll(() => listed.allTextContents(), WAIT).toEqual(passengerIds);
    // the ids in the JSON are links too
    expect(
      await page
        .getByLabel('Record JSON')
        .getByRole('link', { name: `"${departure.id}"` })
        .count(),
    ).toBeGreaterThan(0);
    await screenshot(page, 'data-record');

    // the passengers of the booking: the text search its link opens
    await passengers.click();
    await table(page, 'passengers').waitFor(WAIT);
    expect(new URL(page.url()).searchParams.get('q')).toBe(id);
    expect(await table(page, 'passengers').locator('tbody tr').count()).toBe(record!.related.find((r: Json) => r.collection === 'passengers').count);
    await page.goBack();
    await page.getByTestId('record-id').waitFor(WAIT);
    // the departure's own page
    await pointsTo.getByRole('link', { name: new RegExp(departure.id) }).click();
    await expect.poll(() => page.getByTestId('record-id').textContent(), WAIT).toBe(departure.id);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('searches by exact id and by text, pages by 100, and follows the workspace picker', async () => {
    const created = await control('/workspaces', { method: 'POST', body: { name: 'Data view test' } });
    await control('/seed', { method: 'POST', body: { workspaceId: created.id, bookings: 250 } });
    const total = (await control(`/workspaces/${created.id}/collections/bookings?limit=1`)).total as number;
    const { page, errors } = await suite.chrome.open(ui(`/data/bookings?workspace=${created.id}`));
    // a created workspace is listed and selected by the link
    await expect.poll(() => page.getByLabel('Workspace', { exact: true }).inputValue(), WAIT).toBe(created.id);
    await expect.poll(() => page.getByTestId('page-range').textContent(), WAIT).toBe(`1–100 of ${total.toLocaleString('en')}`);
    await page.getByRole('button', { name: 'Next →' }).click();
    await expect.poll(() => page.getByTestId('page-range').textContent(), WAIT).toBe(`101–200 of ${total.toLocaleString('en')}`);
    expect(new URL(page.url()).searchParams.get('offset')).toBe('100');
    const second = await control(`/workspaces/${created.id}/collections/bookings?limit=100&offset=100&order=newest`);
    await table(page, 'bookings').getByRole('link', { name: second.rows[0].id }).waitFor(WAIT);

    const target = second.rows[5] as Json;
    await page.getByLabel('Record id').fill(target.id);
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.getByTestId('page-range').textContent(), WAIT).toBe('1–1 of 1');
    await table(page, 'bookings').getByRole('link', { name: target.id }).waitFor(WAIT);
    await page.getByRole('button', { name: 'Show all' }).click();
    await page.getByLabel('Search text').fill(target.code);
    await page.getByRole('button', { name: 'Search' }).click();
    await table(page, 'bookings').getByRole('link', { name: target.id }).waitFor(WAIT);
    expect(await table(page, 'bookings').locator('tbody tr').count()).toBeLessThan(100);

    // the picker moves the view to the other workspace's collection
    const other = suite.sandbox.workspaces.find((w) => w.mode === 'live')!;
    await page.getByLabel('Workspace', { exact: true }).selectOption(other.id);
    await expect.poll(() => new URL(page.url()).searchParams.get('workspace'), WAIT).toBe(other.id);
    const otherTotal = (await control(`/workspaces/${other.id}/collections/bookings?limit=1`)).total as number;
    await expect.poll(() => page.getByTestId('page-range').textContent(), WAIT).toContain(`of ${otherTotal.toLocaleString('en')}`);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('an unknown collection or record says so in one line', async () => {
    const ws = suite.sandbox.workspaces[0]!;
    const { page } = await suite.chrome.open(ui(`/data/bookings/book_00000000-0000-4000-8000-00000000dead?workspace=${ws.id}`));
    await expect.poll(() => page.getByRole('alert').textContent(), WAIT).toMatch(/^404 /);
    await page.close();
  });
});
