// Before each test file: a workspace of its own, deleted afterwards.
let workspaceId;

beforeAll(async () => {
  const res = await fetch(`${process.env.SANDBOX_URL}/__sandbox/workspaces`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    // report: rate limits are counted, never refused; a manual clock nobody advances never refills them
    body: JSON.stringify({ name: `jest worker ${process.env.JEST_WORKER_ID}`, rateLimits: 'report' }),
  });
  const { data } = await res.json();
  workspaceId = data.id;
  process.env.SANDBOX_API_KEY = data.keys[0].key; // full access; data.keys[1] is products:read
  process.env.SANDBOX_WORKSPACE_ID = data.id;
});

afterAll(async () => {
  await fetch(`${process.env.SANDBOX_URL}/__sandbox/workspaces/${workspaceId}`, { method: 'DELETE' });
});
