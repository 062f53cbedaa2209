import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';

// A worker's realistic file: 30 bookings, each read back, a catalogue browsed, and every
// booking.created webhook received by a local server. About 100 requests to /v1.
const api = (path: string, init: RequestInit = {}) =>
  fetch(`${process.env.SANDBOX_URL}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${process.env.SANDBOX_API_KEY}`, 'content-type': 'application/json', ...init.headers },
  });
const BOOKINGS = 30;
const received: { type: string; data: { id: string } }[] = [];
let receiver: Server;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  const res = await api('/v1/webhooks/subscriptions', {
    method: 'POST',
    body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks`, events: ['booking.created'] }),
  });
  expect(res.status).toBe(201);
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

it('books, reads back and browses: every request answers, whatever the rate limits', async () => {
  // departures with free seats, from the workspace's own copy of the fixtures (control plane)
  const exported = await (await fetch(`${process.env.SANDBOX_URL}/__sandbox/workspaces/${process.env.SANDBOX_WORKSPACE_ID}/export`)).json();
  const departures = (exported.data.departures as { id: string; seatsLeft: number; status: string }[]).filter(
    (d) => d.status === 'scheduled' && d.seatsLeft > 0,
  );
  const ids: string[] = [];
  for (let i = 0; ids.length < BOOKINGS && i < 10 * BOOKINGS; i++) {
    const departure = departures[i % departures.length]!;
    const res = await api('/v1/bookings', { method: 'POST', body: JSON.stringify({ departureId: departure.id, adults: 1 }) });
    if (res.status === 409) continue; // that departure just filled up
    expect(res.status).toBe(201);
    ids.push((await res.json()).data.id);
  }
  expect(ids).toHaveLength(BOOKINGS);
  for (const id of ids) expect((await api(`/v1/bookings/${id}`)).status).toBe(200);
  for (let offset = 0; offset < 40; offset++) expect((await api(`/v1/products?limit=1&offset=${offset}`)).status).toBe(200);

  // deliveries arrive on their own: wait for them, never for a fixed time
  await expect.poll(() => received.length, { timeout: 15_000 }).toBe(BOOKINGS);
  expect(new Set(received.map((event) => event.data.id))).toEqual(new Set(ids));
}, 60_000); // about 100 requests and their webhooks: more than the default 5 s on a busy machine
