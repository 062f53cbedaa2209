import { createSandbox } from 'travel-commerce-sandbox';
import type { TestProject } from 'vitest/node';

// One sandbox for the whole run, started before any worker.
export default async function setup(project: TestProject) {
  const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
  project.provide('sandboxUrl', sandbox.url);
  return () => sandbox.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    sandboxUrl: string;
  }
}
