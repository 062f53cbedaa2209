// Rate limits on purpose: a workspace of this file's own with rateLimits: 'enforce'. Emptying its
// bucket refuses the next request on any clock (real or manual); moving the workspace's own clock
// to the next minute refills it. Nothing sleeps, nothing races the time.
const control = (path, body) =>
  fetch(`${process.env.SANDBOX_URL}/__sandbox${path}`, {
    method: body === undefined ? 'DELETE' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

test('answers 429 once the limits are spent, says why, and refills when the clock moves', async () => {
  const { data } = await (await control('/workspaces', { name: 'rate limits', rateLimits: 'enforce' })).json();
  const products = () => fetch(`${process.env.SANDBOX_URL}/v1/products?limit=1`, { headers: { authorization: `Bearer ${data.keys[0].key}` } });
  expect((await products()).status).toBe(200);
  await control('/rate-limits/exhaust', { workspaceId: data.id });
  const refused = await products();
  expect(refused.status).toBe(429);
  expect(await refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: expect.any(Number) });
  expect(refused.headers.get('x-sandbox-reason')).toMatch(/^RATE_LIMIT_\w+ /);

  await control(`/workspaces/${data.id}/clock/advance`, { ms: 60_000 }); // the next minute: quota and burst refilled
  expect((await products()).status).toBe(200);
  await control(`/workspaces/${data.id}`);
});
