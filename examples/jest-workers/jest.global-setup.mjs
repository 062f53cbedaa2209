import { createSandbox } from 'travel-commerce-sandbox';

// One sandbox for the whole run, started before any worker, unless one runs already:
// `sandbox exec` (or your CI) sets SANDBOX_URL, and then its sandbox and report are the ones used.
export default async function globalSetup() {
  if (process.env.SANDBOX_URL) return;
  globalThis.__SANDBOX__ = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
  process.env.SANDBOX_URL = globalThis.__SANDBOX__.url; // workers inherit it
}
