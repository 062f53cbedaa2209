import { expect, it } from 'vitest';

// Rate limits on purpose: a workspace of this file's own with rateLimits: 'enforce'. On the
// sandbox's manual clock the burst (5 a second) never refills until the workspace's clock moves.
const control = (path: string, body?: unknown) =>
  fetch(`${process.env.SANDBOX_URL}/__sandbox${path}`, {
    method: body === undefined ? 'DELETE' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

it('answers 429 at the sixth request of a burst, says why, and refills when the clock moves', async () => {
  const { data } = await (await control('/workspaces', { name: 'rate limits', rateLimits: 'enforce' })).json();
  const products = () => fetch(`${process.env.SANDBOX_URL}/v1/products?limit=1`, { headers: { authorization: `Bearer ${data.keys[0].key}` } });
  for (let i = 0; i < 5; i++) expect((await products()).status).toBe(200);
  const refused = await products();
  expect(refused.status).toBe(429);
  expect(await refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 1 });
  expect(refused.headers.get('x-sandbox-reason')).toMatch(/^RATE_LIMIT_BURST .*advance/);

  await control(`/workspaces/${data.id}/clock/advance`, { ms: 1_000 }); // the burst refills at 100 a minute
  expect((await products()).status).toBe(200);
  await control(`/workspaces/${data.id}`);
});
