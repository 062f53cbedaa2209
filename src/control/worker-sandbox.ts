import { ControlClient } from './client.ts';

/**
 * `workerSandbox()`: a test worker's workspace in one call (README,
 * "Parallel test workers"). Under `sandbox exec --workers n` the worker takes
 * the workspace exec made for it: Vitest's VITEST_POOL_ID and Jest's
 * JEST_WORKER_ID both count from 1 to the runner's worker count, so worker i
 * uses SANDBOX_API_KEY_i. Without one (no --workers, fewer of them than the
 * runner's workers, or a sandbox the global setup started), it creates a
 * workspace and deletes it on release(). Either way a test file starts from
 * the template's data: a reused workspace is reset first, since the files a
 * worker ran before wrote to it.
 */
export interface WorkerSandboxOptions {
  /** the sandbox's base URL; default SANDBOX_URL */
  url?: string;
  /** for a created workspace: `report` counts rate limits, never refuses; default the sandbox's own (`--no-rate-limits`) */
  rateLimits?: 'enforce' | 'report';
  /** for a created workspace; default `worker <n>` */
  name?: string;
  /** where SANDBOX_* and the worker id are read; default process.env */
  env?: Record<string, string | undefined>;
}

export interface WorkerSandbox {
  /** the sandbox's base URL (the API is under /v1) */
  url: string;
  /** the workspace's full-access key */
  key: string;
  workspaceId: string;
  /** the runner's worker number (VITEST_POOL_ID, JEST_WORKER_ID), if any */
  worker: number | null;
  /** true when this call created the workspace; false when it is the one `sandbox exec --workers` made */
  created: boolean;
  /** deletes a created workspace; leaves exec's to exec */
  release(): Promise<void>;
}

/** Vitest's worker state: a global in a Vitest worker only. */
const inVitestWorker = (): boolean => '__vitest_worker__' in globalThis;

/**
 * The runner's worker number, from 1: Vitest's pool id or Jest's worker id.
 * Each runner sets its own, but a child process inherits the other's: a Jest
 * run started from a Vitest test still sees VITEST_POOL_ID. So the runner
 * that is running wins, and outside Vitest that is Jest when JEST_WORKER_ID is set.
 */
export function workerNumber(env: Record<string, string | undefined>, vitest = inVitestWorker()): number | null {
  const raw = vitest ? (env.VITEST_POOL_ID ?? env.JEST_WORKER_ID) : (env.JEST_WORKER_ID ?? env.VITEST_POOL_ID);
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

export async function workerSandbox(options: WorkerSandboxOptions = {}): Promise<WorkerSandbox> {
  const env = options.env ?? process.env;
  const url = options.url ?? env.SANDBOX_URL;
  if (!url) {
    throw new Error(
      'workerSandbox(): SANDBOX_URL is not set; run the tests under `npx sandbox exec`, or start a sandbox in the global setup and set SANDBOX_URL (README, "Parallel test workers")',
    );
  }
  const client = new ControlClient({ url, ...(env.SANDBOX_CONTROL_TOKEN ? { token: env.SANDBOX_CONTROL_TOKEN } : {}) });
  const worker = workerNumber(env);
  const key = worker === null ? undefined : env[`SANDBOX_API_KEY_${worker}`];
  const workspaceId = worker === null ? undefined : env[`SANDBOX_WORKSPACE_ID_${worker}`];
  if (key && workspaceId) {
    await client.resetWorkspace(workspaceId);
    return { url, key, workspaceId, worker, created: false, release: async () => {} };
  }
  const made = await client.createWorkspace({
    name: options.name ?? `worker ${worker ?? process.pid}`,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
  });
  return {
    url,
    key: made.keys[0]!.key, // full access; keys[1] is products:read
    workspaceId: made.id,
    worker,
    created: true,
    release: async () => {
      await client.deleteWorkspace(made.id);
    },
  };
}
