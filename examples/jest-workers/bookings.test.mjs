import { createServer } from 'node:http';

// A worker's realistic file: 30 bookings, each read back, a catalogue browsed, and every
// booking.created webhook received by a local server. About 100 requests to /v1.
const api = (path, init = {}) =>
  fetch(`${process.env.SANDBOX_URL}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${process.env.SANDBOX_API_KEY}`, 'content-type': 'application/json', ...init.headers },
  });
const BOOKINGS = 30;
const received = [];
let receiver;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address();
  const res = await api('/v1/webhooks/subscriptions', {
    method: 'POST',
    body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks`, events: ['booking.created'] }),
  });
  expect(res.status).toBe(201);
});
afterAll(() => new Promise((resolve) => receiver.close(resolve)));

/** Deliveries arrive on their own: wait for them (up to 15 s), never for a fixed time. */
async function until(done) {
  for (const deadline = Date.now() + 15_000; !done() && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 20));
}

test('books, reads back and browses: every request answers, whatever the rate limits', async () => {
  // departures with free seats, from the workspace's own copy of the fixtures (control plane)
  const exported = await (await fetch(`${process.env.SANDBOX_URL}/__sandbox/workspaces/${process.env.SANDBOX_WORKSPACE_ID}/export`)).json();
  const departures = exported.data.departures.filter((d) => d.status === 'scheduled' && d.seatsLeft > 0);
  const ids = [];
  for (let i = 0; ids.length < BOOKINGS && i < 10 * BOOKINGS; i++) {
    const res = await api('/v1/bookings', { method: 'POST', body: JSON.stringify({ departureId: departures[i % departures.length].id, adults: 1 }) });
    if (res.status === 409) continue; // that departure just filled up
    expect(res.status).toBe(201);
    ids.push((await res.json()).data.id);
  }
  expect(ids).toHaveLength(BOOKINGS);
  for (const id of ids) expect((await api(`/v1/bookings/${id}`)).status).toBe(200);
  for (let offset = 0; offset < 40; offset++) expect((await api(`/v1/products?limit=1&offset=${offset}`)).status).toBe(200);

  await until(() => received.length >= BOOKINGS);
  expect(received).toHaveLength(BOOKINGS);
  expect(new Set(received.map((event) => event.data.id))).toEqual(new Set(ids));
}, 60_000); // about 100 requests and their webhooks: more than the default 5 s on a busy machine
