import packageJson from '../../package.json' with { type: 'json' };
import type { SandboxContext } from '../context.ts';
import { redactJson } from '../core/redact.ts';
import { defaultWorkspaceOf } from '../core/workspace-lookup.ts';
import { BUNDLE_FORMAT, BUNDLE_VERSION, type Bundle, type BundleRun } from './schema.ts';
import { SCHEMA_VERSION } from '../storage/index.ts';
import { encodeParts } from './file.ts';
import { copyState, exportState } from './state-export.ts';
import { statePieces } from './state-pieces.ts';

export interface CollectOptions {
  /** the command `sandbox exec` ran and how it ended */
  run?: BundleRun;
  /** where the sandbox serves */
  url?: string;
}

/**
 * Everything a running sandbox knows about its run, as a bundle (./schema.ts): read from the
 * context the control plane reads too, so the bundle holds what the inspector showed.
 */
export function collectBundle(ctx: SandboxContext, options: CollectOptions = {}): Bundle {
  return { ...collectHead(ctx, options), state: exportState(ctx) };
}

/**
 * The bundle as gzip bytes: the state copied from the engine at once (a packed partition as its
 * pages), then its tables built one at a time while the text before them is compressed (./file.ts):
 * a consistent state of one moment, though a sandbox that serves GET /__sandbox/bundle goes on
 * taking writes meanwhile.
 */
export async function bundleBytes(ctx: SandboxContext, options: CollectOptions = {}): Promise<Buffer> {
  return Buffer.concat(await bundleMembers(ctx, options));
}

/** The same as its gzip members, not joined (a file takes them one after the other: writeBundleFile). */
export function bundleMembers(ctx: SandboxContext, options: CollectOptions = {}): Promise<Buffer[]> {
  const copies = copyState(ctx);
  return encodeParts(collectHead(ctx, options), SCHEMA_VERSION, statePieces(copies));
}

/** Every field of the bundle but its state. */
function collectHead(ctx: SandboxContext, { run, url }: CollectOptions): Omit<Bundle, 'state'> {
  const { seen, capacity } = ctx.requestLog.counts();
  // newest first from the log; a bundle keeps the order they happened in
  const entries = ctx.requestLog.recent(capacity).reverse();
  const [global, ...workspaces] = ctx.clock.changes();
  const clock = global as Extract<typeof global, { workspaceId: null }>;
  return {
    format: BUNDLE_FORMAT,
    bundleVersion: BUNDLE_VERSION,
    savedAt: new Date().toISOString(), // wall time on purpose: when the file was written, not the run's clock
    sandbox: {
      version: packageJson.version,
      url: url ?? null,
      options: redactJson(ctx.options) as Record<string, unknown>,
      defaultWorkspaceId: defaultWorkspaceOf(ctx)?.id ?? null,
    },
    run: run ? { command: run.command.map((arg) => redactJson(arg) as string), exitCode: run.exitCode } : null,
    clock: {
      mode: clock.mode,
      now: new Date(clock.nowMs).toISOString(),
      nowMs: clock.nowMs,
      workspaces: workspaces.map((w) => ({ workspaceId: w.workspaceId as string, offsetMs: w.offsetMs })),
    },
    requests: {
      // redacted where they were captured and logged (src/http/request-capture.ts, request-hooks.ts): by the same
      // rule again, they would lose the key prefix a masked Authorization shows; a warning's message is not, so it is here
      entries: entries.map((e) => (e.warnings ? { ...e, warnings: redactJson(e.warnings) as typeof e.warnings } : e)),
      capacity,
      seen,
      wrapped: seen > entries.length,
      withDetail: entries.filter((e) => e.detail !== undefined).length,
    },
    faults: redactJson(ctx.faults.list()) as Bundle['faults'],
    report: ctx.runReport.build(ctx.routes.routes, ctx.webhooks.outbox.pending().length),
  };
}
