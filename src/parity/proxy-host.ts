import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.ts';
import type { FixtureWorkspaceView } from '../fixtures/fixture-workspaces.ts';

/** What the proxy needs of its sandbox (a Sandbox is one; not imported, so that sandbox.ts can load this lazily without a cycle). */
export interface ProxyHost {
  app: FastifyInstance;
  context: SandboxContext;
  readonly workspaces: readonly FixtureWorkspaceView[];
}

/** A problem with the proxy's options, in one line the CLI prints as it is. */
export class ProxyStartError extends Error {
  override readonly name = 'ProxyStartError';
}
