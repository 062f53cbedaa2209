import { createSandbox } from 'travel-commerce-sandbox';

// One sandbox for the whole run, started before any worker, unless one runs already:
// `sandbox exec` (or your CI) sets SANDBOX_URL, and then its sandbox and report are the ones used.
export default async function setup() {
  if (process.env.SANDBOX_URL) return;
  const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
  process.env.SANDBOX_URL = sandbox.url; // the workers inherit it
  return () => sandbox.stop();
}
