import { describe, expect, it } from 'vitest';
import { expectOneLineFailure, json, useSandbox } from './harness.ts';

const t = useSandbox();

describe('sandbox data', () => {
  it("lists the collections of the sandbox's default workspace with their counts, or of another by name", async () => {
    const ws = t.sandbox.defaultWorkspace!;
    const r = await t.cli(['data']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^COLLECTION\s+COUNT\s+ID PREFIX\s+STORED AS$/);
    const bookings = t.sandbox.store.count('bookings', ws.id);
    expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^bookings\\s+${bookings}\\s+book_\\s+bookings$`)));
    expect(lines).toContainEqual(expect.stringMatching(/^webhook_subscriptions\s+\d+\s+whsub_\s+webhookSubscriptions$/));
    expect(lines.at(-1)).toBe(`workspace ${ws.name} (${ws.id}) · rows: sandbox data <collection>`);
    const other = t.sandbox.workspaces.find((w) => w.id !== ws.id)!;
    const listed = json(await t.cli(['data', '--workspace', other.name.toLowerCase(), '--json']));
    expect(listed.find((c: { name: string }) => c.name === 'bookings').count).toBe(t.sandbox.store.count('bookings', other.id));
  });

  it('prints a page as a table with a footer naming the next page, and --json prints the route data', async () => {
    const ws = t.sandbox.defaultWorkspace!.id;
    const all = t.sandbox.store.list<{ id: string; code: string }>('bookings', ws);
    const r = await t.cli(['data', 'bookings', '--limit', '3', '--offset', '2']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+CODE\s+STATUS/);
    expect(lines.slice(1, 4).map((l) => l.split(/\s+/)[0])).toEqual(all.slice(2, 5).map((b) => b.id));
    expect(lines[1]).toContain(all[2]!.code);
    expect(lines[4]).toBe(`rows 3-5 of ${all.length} · next: sandbox data bookings --limit 3 --offset 5`);
    const page = json(await t.cli(['data', 'bookings', '--limit', '3', '--json']));
    expect(page).toMatchObject({ collection: 'bookings', total: all.length, totalIsExact: true, limit: 3, offset: 0 });
    expect(page.rows.map((b: { id: string }) => b.id)).toEqual(all.slice(0, 3).map((b) => b.id));

    const searched = await t.cli(['data', 'bookings', '--q', all[7]!.code.toLowerCase()]);
    expect(searched.stdout.trimEnd().split('\n').at(-1)).toBe(`rows 1-1 of 1 matching ${JSON.stringify(all[7]!.code.toLowerCase())}`);
    expect((await t.cli(['data', 'bookings', '--q', 'no such text'])).stdout).toBe('no rows matching "no such text"\n');
  });

  it('shows one record with its links and related records by --id', async () => {
    const ws = t.sandbox.defaultWorkspace!.id;
    const booking = t.sandbox.store.list<{ id: string; departureId: string }>('bookings', ws)[0]!;
    const r = await t.cli(['data', 'bookings', '--id', booking.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`"id": "${booking.id}"`);
    expect(r.stdout).toContain(`  departureId -> departures ${booking.departureId}\n`);
    expect(r.stdout).toMatch(new RegExp(`related:\\n  \\d+ passengers by bookingId  \\(sandbox data passengers --q ${booking.id}\\)`));
    const data = json(await t.cli(['data', 'bookings', '--id', booking.id, '--json']));
    expect(data).toMatchObject({ collection: 'bookings', record: { id: booking.id } });
    expect(data.related[0]).toMatchObject({ collection: 'passengers', field: 'bookingId', q: booking.id });
  });

  it('fails in one line: unknown collection, record or workspace (1); a command line of the wrong form (2)', async () => {
    expect(expectOneLineFailure(await t.cli(['data', 'nope']))).toMatch(/^sandbox: Collection nope not found; the collections are: products, .*bookings/);
    expect(expectOneLineFailure(await t.cli(['data', 'bookings', '--id', 'book_nope']))).toMatch(/book_nope not found/);
    expect(expectOneLineFailure(await t.cli(['data', '--workspace', 'nope']))).toMatch(/^sandbox: no workspace "nope"/);
    const bad = await t.cli(['data', 'bookings', '--limit', '501']);
    expect(bad.code).toBe(1); // a bad value, as commander words it (with its help hint)
    expect(bad.stderr).toMatch(/--limit must be a whole number from 1 to 500/);
    expect(expectOneLineFailure(await t.cli(['data', '--q', 'x']))).toMatch(/need a collection/);
    expect((await t.cli(['data', 'bookings', '--id', 'x', '--q', 'y'])).code).toBe(2);
    expect((await t.cli(['data', 'bookings', 'extra'])).code).toBe(2);
  });
});
