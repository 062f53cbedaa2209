import type { SandboxContext } from '../context.ts';
import type { CreatedKey, CreateWorkspaceInput } from './manager.ts';

/**
 * `sandbox.createWorkspace()`: a created workspace as an object, for a test
 * worker's beforeAll (README, "Parallel test workers"). It calls the same
 * code as the control routes, without HTTP.
 */
export interface WorkspaceHandle {
  id: string;
  name: string;
  mode: 'live' | 'sandbox';
  /** `enforce` (429 as documented) or `report` (counted, never refused): chosen at creation */
  rateLimits: 'enforce' | 'report';
  /** the full-access key first, then the `products:read` key; plain values, shown only here */
  keys: CreatedKey[];
  /** the sandbox's base URL (the API is under /v1) */
  url: string;
  /** back to the template */
  reset(): Promise<void>;
  /** moves this workspace's clock alone, running its due timers */
  advance(ms: number): Promise<void>;
  snapshot(name: string): Promise<void>;
  restore(name: string): Promise<void>;
  delete(): Promise<void>;
}

export async function createWorkspaceHandle(ctx: SandboxContext, url: () => string, input: CreateWorkspaceInput = {}): Promise<WorkspaceHandle> {
  const created = await ctx.workspaces.create(input);
  const { id } = created;
  return {
    id,
    name: created.name,
    mode: created.mode,
    rateLimits: created.rateLimits,
    keys: created.keys,
    get url() {
      return url();
    },
    reset: () => ctx.workspaces.reset(id),
    advance: async (ms) => {
      await ctx.clock.advanceWorkspace(id, ms);
    },
    snapshot: async (name) => {
      ctx.workspaces.snapshot(id, name);
    },
    restore: (name) => ctx.workspaces.restore(id, name),
    delete: async () => {
      await ctx.workspaces.delete(id);
    },
  };
}
