import { expect, it } from 'vitest';

/**
 * A test that fails as tests fail in CI: it writes a record, then reads one that is not there and
 * expects a 200. Run by test/journeys/bundle.test.ts under `sandbox exec --bundle-on-failure`.
 */
const url = process.env.SANDBOX_URL!;
const headers = { authorization: `Bearer ${process.env.SANDBOX_API_KEY!}`, 'content-type': 'application/json' };

it('reads back the booking it expects', async () => {
  const created = await fetch(`${url}/v1/webhooks/subscriptions`, {
    method: 'POST',
    headers: { ...headers, 'x-request-id': 'req_journey_subscription' },
    body: JSON.stringify({ url: 'http://127.0.0.1:9/orders', events: ['booking.*'] }),
  });
  expect(created.status).toBe(201);
  // an event for it: its delivery fails (nothing listens on port 9), an attempt the bundle keeps
  const event = await fetch(`${process.env.SANDBOX_CONTROL_URL!}/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workspaceId: process.env.SANDBOX_WORKSPACE_ID!, type: 'booking.created' }),
  });
  expect(event.status).toBe(201);
  const missing = await fetch(`${url}/v1/bookings/book_00000000-0000-4000-8000-0000000000aa`, {
    headers: { ...headers, 'x-request-id': 'req_journey_missing' },
  });
  expect(missing.status).toBe(200);
});
