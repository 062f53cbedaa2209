import { expect, it } from 'vitest';

it('moves its own clock without moving anyone else', async () => {
  const control = `${process.env.SANDBOX_URL}/__sandbox/workspaces/${process.env.SANDBOX_WORKSPACE_ID}`;
  await fetch(`${control}/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ms: 600_000 }) });
  const clock = await (await fetch(`${control}/clock`)).json();
  expect(clock.data.offsetMs).toBe(600_000);
});
