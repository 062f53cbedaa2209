/**
 * The chaos ledger: clients that write bookings (keyed and
 * unkeyed creates, PATCHes, passenger changes) against a real `sandbox start
 * --data` process, note every answer, retry their unanswered keyed requests
 * after a restart, and check the file and a subscribed receiver against what
 * they were told. Used by ledger-kill9.test.ts and ledger-sigterm.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { auth, exported, until, type Row } from './process.ts';

const DAY = 86_400_000;
/** travellers per ledger booking, so at most this many passenger changes each */
const ADULTS = 2;

type Answer = { status: number; body: Record<string, unknown>; replayed: boolean } | { error: string };

interface Entry {
  kind: 'create' | 'patch' | 'passengers';
  method: 'POST' | 'PATCH';
  path: string;
  body: Record<string, unknown>;
  key: string | null;
  /** create: the booking's metadata.ledger; patch: the notes sequence number; passengers: the person id */
  tag: string;
  seq: number;
  booking: Owned | null;
  answers: Answer[];
  round: number;
  client: number;
}

interface Owned {
  client: number;
  id: string;
  tag: string;
  /** notes sequence number of the last PATCH sent */
  seq: number;
  persons: string[];
  /** a write on it went unanswered: left alone from then on (its state is either) */
  retired: boolean;
}

const acked = (a: Answer | undefined): a is { status: number; body: Record<string, unknown>; replayed: boolean } =>
  a !== undefined && 'status' in a && a.status < 300;
const lastAnswer = (e: Entry) => e.answers[e.answers.length - 1];
const seqOf = (notes: unknown) => (typeof notes === 'string' && notes.includes('#') ? Number(notes.split('#')[1]) : 0);

/** A local receiver for the sandbox's webhooks: keeps every event it is sent (by event id), answers 204. */
export class Receiver {
  readonly events = new Map<string, { type: string; data: Row }>();
  deliveries = 0;
  /** requests per webhook-id header: a retry, a duplicate or a send again after a restart shows as more than one */
  readonly byWebhookId = new Map<string, number>();
  /** per webhook-id, the stops before which each request of it came (`stops` when it came) */
  readonly stopsBefore = new Map<string, number[]>();
  /** how many times the sandbox has stopped so far: a test counts them, once the process has exited */
  stops = 0;
  #server: Server;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<Receiver> {
    const server = createServer();
    const receiver = new Receiver(server);
    server.on('request', (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const webhookId = String(req.headers['webhook-id']);
        receiver.byWebhookId.set(webhookId, (receiver.byWebhookId.get(webhookId) ?? 0) + 1);
        receiver.stopsBefore.set(webhookId, [...(receiver.stopsBefore.get(webhookId) ?? []), receiver.stops]);
        try {
          const event = JSON.parse(body) as { id: string; type: string; data: Row };
          receiver.deliveries++;
          receiver.events.set(event.id, { type: event.type, data: event.data });
        } catch {
          // not an event: answered all the same
        }
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks`;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  /** distinct events of `type` per booking id, for the ledger's bookings only */
  byBooking(type: string): Map<string, Set<string>> {
    const out = new Map<string, Set<string>>();
    for (const [id, event] of this.events) {
      if (event.type !== type || !(event.data.metadata as { ledger?: string } | null)?.ledger) continue;
      const set = out.get(event.data.id) ?? new Set<string>();
      set.add(id);
      out.set(event.data.id, set);
    }
    return out;
  }
}

async function send(url: string, method: string, path: string, body: unknown, key: string | null): Promise<Answer> {
  try {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, replayed: res.headers.get('idempotent-replayed') === 'true' };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { error: cause?.code ?? cause?.message ?? String(err) };
  }
}

export interface Fixture {
  departures: string[];
  people: string[];
  orgId: string;
  files: string[];
}

/** Departures well ahead (the clock moves a day a round), people, the organization and active gallery files. */
export async function fixture(url: string, workspaceId: string): Promise<Fixture> {
  const data = await exported(url, workspaceId);
  const after = new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10);
  const departures = data
    .departures!.filter((d) => ['scheduled', 'guaranteed'].includes(d.status as string) && (d.seatsLeft as number) >= 20 && (d.startDate as string) > after)
    .map((d) => d.id);
  return {
    departures,
    people: data.people!.map((p) => p.id),
    orgId: data.organizations![0]!.id,
    files: data.galleryFiles!.filter((f) => f.status === 'active').map((f) => f.id),
  };
}

/** Subscribes the receiver to booking and gallery events through the API (docs/webhooks.md); returns the subscription id. */
export async function subscribe(url: string, receiver: Receiver): Promise<string> {
  const answer = await send(
    url,
    'POST',
    '/v1/webhooks/subscriptions',
    { url: receiver.url, events: ['booking.*', 'gallery.file.deleted'], maxRetries: 10 },
    null,
  );
  if (!acked(answer)) throw new Error(`the subscription was refused: ${JSON.stringify(answer)}`);
  return (answer.body.data as Row).id;
}

/** Waits until no delivery to the subscription is pending (every event sent and answered); the receiver answers at once. */
export async function deliveriesSettled(url: string, subscriptionId: string, where: string): Promise<void> {
  const pending = async () => {
    const res = await fetch(`${url}/__sandbox/deliveries?subscriptionId=${subscriptionId}&status=pending&limit=500`);
    return ((await res.json()) as { data: unknown[] }).data.length;
  };
  const settled = await until(async () => (await pending()) === 0, 'the pending deliveries', 20_000).then(
    () => true,
    () => false,
  );
  expect.soft(settled, `${where}: every delivery to the receiver was made (${settled ? 0 : await pending()} still pending after 20 s)`).toBe(true);
}

export class Ledger {
  readonly entries: Entry[] = [];
  readonly owned: Owned[] = [];
  #n = 0;

  constructor(
    private readonly random: () => number,
    private readonly fx: Fixture,
  ) {}

  #pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  /** The next write of a client: a create, or a PATCH or passenger change of one of its own bookings. */
  #next(client: number, mine: Owned[], round: number): Entry {
    const keyed = this.random() < 0.5;
    const n = this.#n++;
    const key = keyed ? `ledger-${round}-${client}-${n}-${Math.floor(this.random() * 1e9)}` : null;
    const live = mine.filter((b) => !b.retired);
    const r = this.random();
    if (live.length === 0 || r < 0.4) {
      const tag = key ?? `ledger-${round}-${client}-${n}-u${Math.floor(this.random() * 1e9)}`;
      // departures in turn, so none runs out of seats (each had 20 or more)
      const body = { departureId: this.fx.departures[n % this.fx.departures.length]!, adults: ADULTS, metadata: { ledger: tag } };
      return { kind: 'create', method: 'POST', path: '/v1/bookings', body, key, tag, seq: 0, booking: null, answers: [], round, client };
    }
    const booking = this.#pick(live);
    if (booking.persons.length < ADULTS && r < 0.7) {
      const person = this.#pick(this.fx.people.filter((p) => !booking.persons.includes(p)));
      booking.persons.push(person);
      const body = { passengers: [{ personId: person, role: 'guest' }] };
      return {
        kind: 'passengers',
        method: 'POST',
        path: `/v1/bookings/${booking.id}/passengers`,
        body,
        key,
        tag: person,
        seq: 0,
        booking,
        answers: [],
        round,
        client,
      };
    }
    const seq = ++booking.seq;
    // PATCH takes no Idempotency-Key (POST only): a lost answer is not retried
    const body = { notes: `${booking.tag}#${seq}`, ...(seq === 1 ? { status: 'confirmed' } : {}) };
    return { kind: 'patch', method: 'PATCH', path: `/v1/bookings/${booking.id}`, body, key: null, tag: booking.tag, seq, booking, answers: [], round, client };
  }

  #settle(entry: Entry): void {
    const answer = lastAnswer(entry);
    if (!acked(answer)) {
      if (entry.booking) entry.booking.retired = true;
      return;
    }
    if (entry.kind === 'create' && !entry.answers.slice(0, -1).some(acked)) {
      const id = ((answer.body.data ?? answer.body) as Row).id;
      this.owned.push({ client: entry.client, id, tag: entry.tag, seq: 0, persons: [], retired: false });
    }
  }

  /**
   * `count` clients writing until the sandbox stops answering (a connection
   * error, or a 503 while it stops). Returns once every client has stopped.
   */
  async clients(url: string, count: number, round: number): Promise<void> {
    const loop = async (client: number) => {
      for (;;) {
        const mine = this.owned.filter((b) => b.client === client);
        const entry = this.#next(client, mine, round);
        this.entries.push(entry);
        entry.answers.push(await send(url, entry.method, entry.path, entry.body, entry.key));
        this.#settle(entry);
        const answer = lastAnswer(entry)!;
        if ('error' in answer || answer.status === 503) return;
        expect.soft(answer.status, `${entry.method} ${entry.path} ${JSON.stringify(entry.body)} answered ${JSON.stringify(answer.body)}`).toBeLessThan(300);
        if (answer.status >= 300) return;
      }
    };
    await Promise.all(Array.from({ length: count }, (_, c) => loop(c)));
  }

  /** Keyed requests left without a 2xx, sent again with the same key and body; each must now be acknowledged. */
  async retry(url: string): Promise<{ retried: number; replayed: number }> {
    let retried = 0;
    let replayed = 0;
    for (const entry of this.entries) {
      if (!entry.key || acked(lastAnswer(entry))) continue;
      const answer = await send(url, entry.method, entry.path, entry.body, entry.key);
      entry.answers.push(answer);
      expect.soft(acked(answer), `the retry of ${entry.method} ${entry.path} (Idempotency-Key ${entry.key}) answered ${JSON.stringify(answer)}`).toBe(true);
      retried++;
      if (acked(answer) && answer.replayed) replayed++;
      this.#settle(entry);
    }
    return { retried, replayed };
  }

  /** Counts for the closing figures. */
  figures(): { requests: number; acknowledged: number; unanswered: number; errors: Record<string, number> } {
    const errors: Record<string, number> = {};
    let requests = 0;
    let acknowledged = 0;
    let unanswered = 0;
    for (const e of this.entries) {
      requests += e.answers.length;
      if (e.answers.some(acked)) acknowledged++;
      else unanswered++;
      for (const a of e.answers) {
        const name = 'error' in a ? a.error : a.status >= 300 ? String(a.status) : null;
        if (name) errors[name] = (errors[name] ?? 0) + 1;
      }
    }
    return { requests, acknowledged, unanswered, errors };
  }

  /**
   * SIGTERM: a request the client got no 2xx for (a connection error, or a
   * 503 from the stop) left nothing behind. Checked before the retries.
   */
  checkNothingKeptUnanswered(data: Record<string, Row[]>, round: number, where: string): void {
    const file = new FileView(data);
    const kept: string[] = [];
    for (const entry of this.entries) {
      const answer = lastAnswer(entry);
      if (entry.round !== round || entry.answers.length !== 1 || acked(answer)) continue;
      const what = `${entry.method} ${entry.path} ${JSON.stringify(entry.body)} got ${JSON.stringify(answer)}, yet`;
      if (entry.kind === 'create' && file.byTag.has(entry.tag)) kept.push(`${what} its booking was kept`);
      if (entry.kind === 'patch' && file.seq(entry.booking!.id) >= entry.seq) kept.push(`${what} its notes were kept`);
      if (entry.kind === 'passengers' && file.passengers(entry.booking!.id, entry.tag) > 0) kept.push(`${what} its passenger was kept`);
    }
    check('every request without an answer (a connection error, or a 503 from the stop) kept nothing', where, kept);
  }

  /**
   * Every acknowledged write is in the file exactly once; no key (no ledger
   * tag) has two bookings; each ledger booking has exactly its one
   * `booking.created` and one `booking.updated` per change kept, so every
   * acknowledged write's events arrived and no event came for a write the
   * file does not hold.
   */
  verify(data: Record<string, Row[]>, receiver: Receiver, where: string): void {
    const file = new FileView(data);
    const twice: string[] = [];
    for (const [tag, rows] of file.byTag) if (rows.length > 1) twice.push(`${rows.length} bookings carry ${tag}`);
    check('no Idempotency-Key (nor unkeyed create) has two bookings', where, twice);

    const lost: string[] = [];
    for (const entry of this.entries) {
      const answers = entry.answers.filter(acked);
      if (answers.length === 0) continue;
      const what = `acknowledged ${entry.method} ${entry.path} ${JSON.stringify(entry.body)}`;
      if (entry.kind === 'create') {
        const ids = new Set(answers.map((a) => ((a.body.data ?? a.body) as Row).id));
        const found = file.byTag.get(entry.tag)?.map((b) => b.id) ?? [];
        if (ids.size !== 1 || found.length !== 1 || !ids.has(found[0]!))
          lost.push(`${what}: answered ${[...ids].join(', ')}, the file holds ${found.join(', ') || 'none'}`);
      }
      if (entry.kind === 'patch' && file.seq(entry.booking!.id) < entry.seq) lost.push(`${what}: not in the file`);
      if (entry.kind === 'passengers' && file.passengers(entry.booking!.id, entry.tag) !== 1)
        lost.push(`${what}: its passenger is in the file ${file.passengers(entry.booking!.id, entry.tag)} times`);
    }
    check('every acknowledged write is there exactly once', where, lost);

    const created = receiver.byBooking('booking.created');
    const updated = receiver.byBooking('booking.updated');
    const undelivered: string[] = [];
    const unbacked: string[] = [];
    for (const booking of file.bookings) {
      const id = booking.id;
      const tag = (booking.metadata as { ledger: string }).ledger;
      const born = created.get(id)?.size ?? 0;
      const changes = file.seq(id) + file.passengersOf(id);
      const told = updated.get(id)?.size ?? 0;
      if (born === 0) undelivered.push(`booking ${id} (${tag}): no booking.created`);
      if (born > 1) unbacked.push(`booking ${id} (${tag}): ${born} booking.created events`);
      if (told < changes) undelivered.push(`booking ${id} (${tag}): ${changes} changes kept (PATCHes, passengers), ${told} booking.updated events`);
      if (told > changes) unbacked.push(`booking ${id} (${tag}): ${changes} changes kept (PATCHes, passengers), ${told} booking.updated events`);
    }
    const held = new Set(file.bookings.map((b) => b.id));
    for (const id of new Set([...created.keys(), ...updated.keys()]))
      if (!held.has(id)) unbacked.push(`events came for booking ${id}, which the file does not hold`);
    check("every kept write's events were delivered at least once", where, undelivered);
    check('no event is left without its record', where, unbacked);
  }
}

/** One check of the ledger, its violations reported together; soft, so one failure names every check that broke. */
function check(name: string, where: string, violations: string[]): void {
  const shown = violations.slice(0, 3).join('; ');
  expect.soft(violations.length, `${where}: ${name}: ${violations.length} violations${violations.length ? `, e.g. ${shown}` : ''}`).toBe(0);
}

/** The ledger's bookings and passengers in an export. */
class FileView {
  readonly byTag = new Map<string, Row[]>();
  readonly #bookings = new Map<string, Row>();
  readonly #passengers = new Map<string, string[]>();

  constructor(data: Record<string, Row[]>) {
    for (const b of data.bookings!) {
      const tag = (b.metadata as { ledger?: string } | null)?.ledger;
      if (!tag) continue;
      this.byTag.set(tag, [...(this.byTag.get(tag) ?? []), b]);
      this.#bookings.set(b.id, b);
    }
    for (const p of data.passengers!) {
      if (!this.#bookings.has(p.bookingId as string)) continue;
      this.#passengers.set(p.bookingId as string, [...(this.#passengers.get(p.bookingId as string) ?? []), p.personId as string]);
    }
  }

  /** every ledger booking, a tag's second one included */
  get bookings(): Row[] {
    return [...this.#bookings.values()];
  }

  seq(bookingId: string): number {
    return seqOf(this.#bookings.get(bookingId)?.notes);
  }

  passengers(bookingId: string, personId: string): number {
    return (this.#passengers.get(bookingId) ?? []).filter((p) => p === personId).length;
  }

  passengersOf(bookingId: string): number {
    return (this.#passengers.get(bookingId) ?? []).length;
  }
}

/** What must be where it was after a restart: the clock, an expired organization key, a pending gallery deletion. */
export interface Kept {
  offsetMs: number;
  expiredKey: string;
  fileId: string;
}

/** one gallery file's status through the control plane's exact lookup (cheaper than a whole export); undefined once it is gone */
async function fileStatus(url: string, workspaceId: string, fileId: string): Promise<string | undefined> {
  const res = await fetch(`${url}/__sandbox/workspaces/${workspaceId}/collections/galleryFiles?id=${encodeURIComponent(fileId)}`);
  return ((await res.json()) as { data: { rows: Row[] } }).data.rows[0]?.status as string | undefined;
}

const clockOffset = async (url: string) => ((await (await fetch(`${url}/__sandbox/clock`)).json()) as { data: { nowMs: number } }).data.nowMs - Date.now();
const productsWith = async (url: string, key: string) => (await fetch(`${url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${key}` } })).status;

/**
 * Before a restart: an organization key expiring in 12 h, the clock advanced a
 * day (the key now 401), and a gallery file deleted (its job due in 30 s of
 * the advanced clock).
 */
export async function keepBeforeRestart(url: string, fx: Fixture, round: number): Promise<Kept> {
  const nowMs = (await clockOffset(url)) + Date.now();
  const issued = await send(
    url,
    'POST',
    `/v1/organizations/${fx.orgId}/api-keys`,
    { name: `ledger ${round}`, scopes: ['products:read'], expiresAt: new Date(nowMs + DAY / 2).toISOString() },
    null,
  );
  if (!acked(issued)) throw new Error(`the organization key was refused: ${JSON.stringify(issued)}`);
  const expiredKey = (issued.body.data as { key: string }).key;
  expect(await productsWith(url, expiredKey)).toBe(200);
  const advanced = await fetch(`${url}/__sandbox/clock/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ms: DAY }),
  });
  expect(advanced.status).toBe(200);
  expect(await productsWith(url, expiredKey)).toBe(401);
  const fileId = fx.files.pop()!;
  expect((await fetch(`${url}/v1/gallery/files/${fileId}`, { method: 'DELETE', headers: auth })).status).toBe(202);
  return { offsetMs: await clockOffset(url), expiredKey, fileId };
}

/** After the restart: the clock is as far ahead, the key still 401, the file still being deleted. */
export async function checkKeptAfterRestart(url: string, workspaceId: string, kept: Kept, where: string): Promise<void> {
  const offset = await clockOffset(url);
  const clock = `${where}: the clock is where it was before the restart (${kept.offsetMs} ms ahead of wall time; after: ${offset} ms)`;
  expect.soft(Math.abs(offset - kept.offsetMs), clock).toBeLessThan(60_000);
  expect.soft(await productsWith(url, kept.expiredKey), `${where}: an organization key that had expired is still refused`).toBe(401);
  expect
    .soft(await fileStatus(url, workspaceId, kept.fileId), `${where}: gallery file ${kept.fileId}, deleted before the restart, is still being deleted`)
    .toBe('deleting');
}

/** The deletion job falls due 30 s later on the restored clock: advanced, it runs and its event is delivered. */
export async function checkJobRuns(url: string, workspaceId: string, kept: Kept, receiver: Receiver, where: string): Promise<void> {
  const advanced = await fetch(`${url}/__sandbox/clock/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ms: 31_000 }),
  });
  expect(advanced.status).toBe(200);
  const gone = async () => (await fileStatus(url, workspaceId, kept.fileId)) !== 'deleting';
  const ran = await until(gone, 'the job', 5_000).then(
    () => true,
    () => false,
  );
  expect.soft(ran, `${where}: the deletion job of ${kept.fileId} ran 31 s past its due time on the restored clock`).toBe(true);
  if (!ran) return;
  const delivered = () => [...receiver.events.values()].some((e) => e.type === 'gallery.file.deleted' && e.data.id === kept.fileId);
  const told = await until(delivered, 'the event', 10_000).then(
    () => true,
    () => false,
  );
  expect.soft(told, `${where}: gallery.file.deleted for ${kept.fileId} was delivered`).toBe(true);
}

const LEDGER_EVENT_TYPES = ['booking.created', 'booking.updated', 'booking.cancelled', 'gallery.file.deleted'];

type LoggedDelivery = { webhookId: string; status: string; attempts: unknown[]; fault: { duplicateOf?: string } | null };

/**
 * With a `--duplicate` delivery rule active: every request the receiver got for a webhook-id
 * beyond its first is a duplicate a rule made (a delivery that says "duplicate of dlv_…"), or a
 * send again after a restart of one the receiver got before the stop: an attempt a stop cut before
 * its result was stored is made again (docs/webhooks.md, "Ordering and duplicates"), as without
 * a rule, and its duplicate with it. And each duplicate a rule made and the receiver answered
 * arrived. Answers how many duplicates the rule made.
 */
export async function checkExtraDeliveries(url: string, subscriptionId: string, receiver: Receiver, where: string): Promise<{ made: number; resent: number }> {
  const logged: LoggedDelivery[] = [];
  for (const type of LEDGER_EVENT_TYPES) {
    const res = await fetch(`${url}/__sandbox/deliveries?subscriptionId=${subscriptionId}&eventType=${type}&limit=500`);
    const { data } = (await res.json()) as { data: LoggedDelivery[] };
    if (data.length === 500) throw new Error(`${where}: 500 ${type} deliveries or more: the log cannot be read whole for the check`);
    logged.push(...data);
  }
  const made = new Map<string, number>();
  for (const d of logged) if (d.fault?.duplicateOf && d.attempts.length > 0) made.set(d.webhookId, (made.get(d.webhookId) ?? 0) + 1);
  let resent = 0;
  const unexplained: string[] = [];
  for (const [webhookId, count] of receiver.byWebhookId) {
    const extra = count - 1 - (made.get(webhookId) ?? 0);
    if (extra <= 0) continue;
    resent += extra;
    // not a rule's: it must be a send again across a stop, of one that came before it
    if (new Set(receiver.stopsBefore.get(webhookId)).size < 2)
      unexplained.push(`${webhookId} ${count} times, ${made.get(webhookId) ?? 0} of them a rule's, all between the same two stops`);
  }
  const lost = logged
    .filter((d) => d.fault?.duplicateOf && d.status === 'succeeded' && (receiver.byWebhookId.get(d.webhookId) ?? 0) < 2)
    .map((d) => d.webhookId);
  expect.soft(lost, `${where}: every duplicate a rule made and the receiver answered arrived`).toEqual([]);
  expect.soft(unexplained, `${where}: every extra delivery is a rule's duplicate, or a send again after a restart`).toEqual([]);
  return { made: [...made.values()].reduce((a, b) => a + b, 0), resent };
}
