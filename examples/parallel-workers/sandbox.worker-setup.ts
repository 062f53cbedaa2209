import { workerSandbox, type WorkerSandbox } from 'travel-commerce-sandbox';
import { afterAll, beforeAll } from 'vitest';

// Runs in each worker before each test file: the workspace `sandbox exec --workers` made for
// this worker (SANDBOX_API_KEY_<VITEST_POOL_ID>), reset, or else one of its own, deleted afterwards.
let worker: WorkerSandbox;

beforeAll(async () => {
  // report: rate limits are counted, never refused; a manual clock nobody advances never refills them
  worker = await workerSandbox({ rateLimits: 'report' });
  process.env.SANDBOX_API_KEY = worker.key; // full access
  process.env.SANDBOX_WORKSPACE_ID = worker.workspaceId;
});

afterAll(() => worker.release());
