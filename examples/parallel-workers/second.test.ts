import { expect, it } from 'vitest';

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${process.env.SANDBOX_URL}${path}`, { ...init, headers: { authorization: `Bearer ${process.env.SANDBOX_API_KEY}`, ...init.headers } });

it('has a workspace of its own, with the template data', async () => {
  const res = await api('/v1/products?limit=1');
  expect(res.status).toBe(200);
});

it('moves its own clock without moving anyone else', async () => {
  const control = `${process.env.SANDBOX_URL}/__sandbox/workspaces/${process.env.SANDBOX_WORKSPACE_ID}`;
  await fetch(`${control}/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 600_000 }) });
  const clock = await (await fetch(`${control}/clock`)).json();
  expect(clock.data.offsetMs).toBe(600_000);
});
