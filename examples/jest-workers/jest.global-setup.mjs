import { createSandbox } from 'travel-commerce-sandbox';

// One sandbox for the whole run, started before any worker.
export default async function globalSetup() {
  globalThis.__SANDBOX__ = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
  process.env.SANDBOX_URL = globalThis.__SANDBOX__.url; // workers inherit it
}
