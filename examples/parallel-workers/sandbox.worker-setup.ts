import { afterAll, beforeAll, inject } from 'vitest';

// Runs in each worker before each test file: a workspace of its own, deleted afterwards.
const url = inject('sandboxUrl');
let workspaceId = '';

beforeAll(async () => {
  const res = await fetch(`${url}/__sandbox/workspaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // report: rate limits are counted, never refused; a manual clock nobody advances never refills them
    body: JSON.stringify({ name: `vitest worker ${process.env.VITEST_POOL_ID}`, rateLimits: 'report' }),
  });
  const { data } = (await res.json()) as { data: { id: string; keys: { key: string }[] } };
  workspaceId = data.id;
  process.env.SANDBOX_URL = url;
  process.env.SANDBOX_API_KEY = data.keys[0]!.key; // full access; data.keys[1] is products:read
  process.env.SANDBOX_WORKSPACE_ID = data.id;
});

afterAll(async () => {
  await fetch(`${url}/__sandbox/workspaces/${workspaceId}`, { method: 'DELETE' });
});
