import type { ControlClient } from '../control/client.ts';
import { dim, printJson } from './output.ts';
import { say, table } from './format.ts';
import { controlClient, resolveWorkspace, type ScriptFlags } from './control.ts';

/**
 * `sandbox data [collection]`: what a workspace of a running sandbox holds, through the data
 * inspector's routes (docs/control-plane.md, "Data inspector"). Without a collection, the
 * collections and their counts; with one, a page of its records (a table of the id and a few
 * telling fields, and a footer with the command for the next page); with --id, one record in
 * full, the ids it holds and what points back to it. --json prints the route's data.
 */
export interface DataFlags extends ScriptFlags {
  limit?: number;
  offset?: number;
  q?: string;
  id?: string;
}

type Page = Awaited<ReturnType<ControlClient['dataPage']>>;
type Row = Page['rows'][number];

/** Fields shown beside the id when a row has them, in this order (at most COLUMNS of them). */
const TELLING = [
  'code',
  'status',
  'name',
  'title',
  'firstName',
  'lastName',
  'email',
  'slug',
  'filename',
  'url',
  'events',
  'startDate',
  'day',
  'channel',
  'event',
  'cnt',
  'role',
  'type',
  'productId',
  'departureId',
  'bookingId',
  'personId',
  'customerId',
  'organizationId',
  'subscriptionId',
  'totalAmount',
  'createdAt',
  'created_at',
];
const COLUMNS = 4;

/** A column of the page's table: its header and what a row shows in it. */
interface Column {
  header: string;
  value: (row: Row) => unknown;
}
const field = (name: string): Column => ({ header: name.toUpperCase(), value: (row) => row[name] });

/**
 * Collections whose table is chosen rather than found: a departure shows its seats left of its
 * capacity (a booking takes its seats from `seatsLeft`, a cancellation gives them back:
 * src/resources/departures/pricing.ts), what a first booking needs to know of it.
 */
const CHOSEN: Readonly<Record<string, readonly Column[]>> = {
  departures: [
    field('status'),
    field('startDate'),
    { header: 'SEATS LEFT', value: (row) => (typeof row.seatsLeft === 'number' ? `${row.seatsLeft} of ${row.capacity}` : undefined) },
    field('productId'),
  ],
};
const CELL = 46; // a prefixed UUID (gal_file_ + 36) whole

export async function runData(collection: string | undefined, flags: DataFlags): Promise<void> {
  if (collection === undefined && (flags.q !== undefined || flags.id !== undefined || flags.offset !== undefined || flags.limit !== undefined)) {
    throw new Error('--q, --id, --limit and --offset need a collection: run `sandbox data` to list them');
  }
  const client = await controlClient(flags);
  const workspace = await resolveWorkspace(client, flags.workspace);
  if (collection === undefined) {
    const collections = await client.dataCollections(workspace.id);
    if (flags.json) return printJson(collections);
    say(
      `${table(
        ['COLLECTION', 'COUNT', 'ID PREFIX', 'STORED AS'],
        collections.map((c) => [c.name, c.count.toLocaleString('en'), c.idPrefix === null ? '-' : `${c.idPrefix}_`, c.stored]),
      )}${dim(`workspace ${workspace.name} (${workspace.id}) · rows: sandbox data <collection>`)}`,
    );
    return;
  }
  if (flags.id !== undefined) {
    const found = await client.dataRecord(workspace.id, collection, flags.id);
    if (flags.json) return printJson(found);
    const links = found.links.map((l) => `  ${l.field} -> ${l.collection} ${l.id}${l.exists ? '' : ' (missing)'}`);
    const related = found.related.map(
      (r) =>
        `  ${r.count.toLocaleString('en')} ${r.collection} by ${r.field}${r.count > 0 ? dim(`  (sandbox data ${r.collection} --q ${r.q}${workspaceFlag(flags)})`) : ''}`,
    );
    say([JSON.stringify(found.record, null, 2), ...(links.length ? ['links:', ...links] : []), ...(related.length ? ['related:', ...related] : [])].join('\n'));
    return;
  }
  const page = await client.dataPage(workspace.id, collection, { limit: flags.limit, offset: flags.offset, q: flags.q });
  if (flags.json) return printJson(page);
  const columns = CHOSEN[collection] ?? columnsOf(page.rows);
  const body =
    page.rows.length > 0
      ? table(
          ['ID', ...columns.map((c) => c.header)],
          page.rows.map((row) => [row.id, ...columns.map((c) => cell(c.value(row)))]),
        )
      : '';
  say(`${body}${dim(footer(page, flags))}`);
}

/** The first COLUMNS telling fields any row of the page has. */
function columnsOf(rows: readonly Row[]): Column[] {
  return TELLING.filter((name) => rows.some((row) => row[name] !== undefined))
    .slice(0, COLUMNS)
    .map(field);
}

function cell(value: unknown): string {
  const text = value === undefined || value === null ? '-' : typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > CELL ? `${text.slice(0, CELL - 1)}…` : text;
}

/** `rows 1-100 of 100,000 · next: sandbox data bookings --offset 100` */
export function footer(page: Page, flags: Pick<DataFlags, 'q' | 'limit' | 'workspace'>): string {
  const of = `${page.totalIsExact ? '' : 'at least '}${page.total.toLocaleString('en')}`;
  const what = flags.q !== undefined ? ` matching ${JSON.stringify(flags.q)}` : '';
  if (page.rows.length === 0) return page.total === 0 ? `no rows${what}` : `no rows at offset ${page.offset.toLocaleString('en')} of ${of}${what}`;
  const last = page.offset + page.rows.length;
  const range = `rows ${(page.offset + 1).toLocaleString('en')}-${last.toLocaleString('en')} of ${of}${what}`;
  if (last >= page.total && page.totalIsExact) return range;
  const next = [
    `sandbox data ${page.collection}`,
    ...(flags.q !== undefined ? [`--q ${shellWord(flags.q)}`] : []),
    ...(flags.limit !== undefined ? [`--limit ${flags.limit}`] : []),
    `--offset ${last}`,
  ].join(' ');
  return `${range} · next: ${next}${workspaceFlag(flags)}`;
}

const workspaceFlag = (flags: Pick<DataFlags, 'workspace'>): string => (flags.workspace !== undefined ? ` --workspace ${shellWord(flags.workspace)}` : '');
const shellWord = (text: string): string => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
