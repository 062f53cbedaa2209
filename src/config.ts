import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { normaliseAllowedHost } from './core/host-guard.ts';
import { DEFAULT_CAPTURE_BYTES } from './core/request-log.ts';
import { DEFAULT_CACHED_ROWS } from './storage/index.ts';
import { DIFFERENCE_KINDS } from './parity/types.ts';

/**
 * The package root: the nearest folder above this module that holds
 * package.json. Found by walking up, because this module runs both from src/
 * (tsx) and from a chunk in dist/ (the bundle).
 */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** Options of createSandbox(). Every default is documented in README.md and docs/configuration.md. */
export const PACKAGE_ROOT = packageRoot();
export const DEFAULT_FIXTURES_DIR = join(PACKAGE_ROOT, 'fixtures');
export const DEFAULT_SCENARIOS_DIR = join(PACKAGE_ROOT, 'scenarios');
export const DEFAULT_SEED = 20260115;
/** where a manual clock starts unless told otherwise */
export const DEFAULT_MANUAL_CLOCK_START = '2026-01-15T09:00:00.000Z';
/** created workspaces at most, by default (a runaway loop of creates stops there) */
export const DEFAULT_MAX_WORKSPACES = 1000;
/** how long a stop lets requests in flight finish before it answers them 503 (src/http/drain.ts) */
export const DEFAULT_STOP_TIMEOUT_MS = 3_000;
/** pending webhook deliveries per subscription, by default (src/webhooks/outbox.ts, expireOps; docs/webhooks.md) */
export const DEFAULT_MAX_PENDING_DELIVERIES = 1000;
/** GET /__sandbox/stream clients at once, by default (src/control/stream-hub.ts) */
export const DEFAULT_MAX_STREAM_CLIENTS = 100;
/** named snapshots per workspace, and of the whole state, by default (docs/configuration.md, "Bounds") */
export const DEFAULT_MAX_SNAPSHOTS = 100;
/** the bytes of JSON of every named snapshot together, by default: 128 MiB (docs/configuration.md, "Bounds") */
export const DEFAULT_MAX_SNAPSHOT_BYTES = 128 * 1024 * 1024;

/** how long the parity proxy waits for the target's whole answer, headers and body, by default */
export const DEFAULT_TARGET_TIMEOUT_MS = 30_000;
/** the largest answer of the target the parity proxy holds to compare, by default: 10 MiB (docs/parity.md, "Bounds on what a target sends") */
export const DEFAULT_TARGET_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** the most `maxBodyBytes` may be: one answer held whole, and the most zlib inflates it to */
export const MAX_TARGET_MAX_BODY_BYTES = 1024 * 1024 * 1024;

/**
 * `proxy`: run as the parity proxy (docs/parity.md): a second loopback port whose /v1
 * requests go to `target`, each replayed in the sandbox and both answers compared.
 */
export const ProxyOptionsSchema = z.object({
  /** the real API's base URL (http or https; a path in it is kept before /v1) */
  target: z.string().min(1),
  /** the fixture workspace the replays run in, by id or name (default: the first sandbox-mode one) */
  workspace: z.string().min(1).optional(),
  /** a directory where what was learned is written as fixtures (`sandbox start --fixtures <dir>` loads it) */
  record: z.string().min(1).optional(),
  /** differences not to report: a glob over the operation, an optional kind and field glob (src/parity/types.ts, IgnoreRule; src/parity/ignore.ts) */
  ignore: z.array(z.object({ path: z.string().min(1), kind: z.enum(DIFFERENCE_KINDS).optional(), field: z.string().min(1).optional() })).default([]),
  /** the proxy's port on the sandbox's (loopback) host; 0 = any free port */
  port: z.number().int().min(0).max(65535).default(0),
  /** the target's deadline for its whole answer, headers and body, by wall time from when the request is sent: past it the client gets a 504 (or, once an answer over maxBodyBytes is streaming, its connection is cut) */
  timeoutMs: z.number().int().min(1).max(600_000).default(DEFAULT_TARGET_TIMEOUT_MS),
  /** the largest answer body held to compare; a larger one is streamed to the client untouched, not kept and not compared */
  maxBodyBytes: z.number().int().min(1024).max(MAX_TARGET_MAX_BODY_BYTES).default(DEFAULT_TARGET_MAX_BODY_BYTES),
});
export type ProxyOptions = z.output<typeof ProxyOptionsSchema>;

export const SandboxOptionsSchema = z.object({
  /** 0 = any free port */
  port: z.number().int().min(0).max(65535).default(0),
  host: z.string().min(1).default('127.0.0.1'),
  /**
   * host names a sandbox bound to loopback answers besides localhost, 127.0.0.0/8 and [::1]
   * (a proxy's or a container's name; `.example.test` also allows its subdomains). Every other
   * Host gets a 403, against DNS rebinding (src/core/host-guard.ts, docs/configuration.md)
   */
  allowedHosts: z
    .array(
      z
        .string()
        .refine((value) => normaliseAllowedHost(value) !== null, {
          message: 'an allowed host is a host name or IP address without scheme or port, e.g. sandbox.test or .example.test',
        })
        .transform((value) => normaliseAllowedHost(value)!),
    )
    .default([]),
  /** a database file path, or 'memory' */
  storage: z.string().min(1).default('memory'),
  fixturesDir: z.string().min(1).default(DEFAULT_FIXTURES_DIR),
  seed: z.number().int().default(DEFAULT_SEED),
  clock: z.enum(['real', 'manual']).default('real'),
  /** ISO time or epoch ms where the clock starts (manual default: 2026-01-15T09:00Z) */
  clockStart: z.union([z.string(), z.number()]).optional(),
  /**
   * start with the clock configured here even when the database file saved a later one
   * (by default the saved clock is restored: docs/storage.md, "The clock is saved")
   */
  freshClock: z.boolean().default(false),
  /**
   * emulated suspension after repeated 429s (docs/api-notes.md, "Rate limits"); off by default.
   * true turns it on with the defaults; an object sets them.
   */
  suspension: z
    .union([
      z.boolean(),
      z.object({
        maxViolations: z.number().int().min(1).optional(),
        windowMs: z.number().int().min(1000).optional(),
        durationMs: z.number().int().min(1000).optional(),
      }),
    ])
    .default(false),
  /** false: limits are computed and reported in headers but never enforced */
  enforceRateLimits: z.boolean().default(true),
  internalApiKey: z.string().min(16).optional(),
  /** required on /__sandbox when bound to a non-loopback host; generated if absent */
  controlToken: z.string().min(8).optional(),
  /** emulated edge-cache lag after key revocation or expiry (default 0: immediate) */
  revocationLagMs: z.number().int().min(0).default(0),
  /** delay before a gallery file in `deleting` is removed and gallery.file.deleted fires (sandbox clock) */
  galleryDeletionDelayMs: z.number().int().min(0).default(30_000),
  /** check every response body against its schema (on in the test suite) */
  validateResponses: z.boolean().default(false),
  /** maximum request body size in bytes */
  bodyLimit: z
    .number()
    .int()
    .min(1024)
    .default(1024 * 1024),
  /** listen on a socket; false = only app.inject (tests) */
  listen: z.boolean().default(true),
  /** fsync the journal on each group commit */
  fsync: z.boolean().default(true),
  /** a journal that does not continue the database file is set aside, not refused (docs/storage.md, "A journal that does not match") */
  recover: z.boolean().default(false),
  /** reject plain http:// webhook URLs even for loopback hosts, as production would (docs/webhooks.md) */
  strictWebhookUrls: z.boolean().default(false),
  /** the deadline of one webhook delivery attempt, connect to last body byte (docs/webhooks.md, "Receiver limits") */
  webhookTimeoutMs: z.number().int().min(1).max(300_000).default(10_000),
  /** turn every sandbox warning (X-Sandbox-Warning) into a 400 VALIDATION_400 (docs/api-notes.md, "Warnings") */
  strict: z.boolean().default(false),
  /** multiplies the webhook retry schedule (e.g. 0.01 to watch retries live; docs/webhooks.md) */
  webhookRetryScale: z.number().positive().max(1).default(1),
  /** pending webhook deliveries per subscription; past it the oldest is marked expired (docs/webhooks.md, "Durable outbox") */
  webhookMaxPending: z.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_PENDING_DELIVERIES),
  /** created workspaces at most (POST /__sandbox/workspaces answers 409 past it; docs/control-plane.md) */
  maxWorkspaces: z.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_WORKSPACES),
  /** GET /__sandbox/stream clients at once (a new one answers 409 past it; docs/control-plane.md) */
  maxStreamClients: z.number().int().min(1).max(100_000).default(DEFAULT_MAX_STREAM_CLIENTS),
  /** the request log's captured headers and bodies, all together, in bytes (the oldest leave first; docs/configuration.md) */
  requestCaptureBytes: z.number().int().min(0).default(DEFAULT_CAPTURE_BYTES),
  /** a stop lets requests in flight finish for this long; then they are answered 503 SANDBOX_STOPPING (docs/configuration.md, "Stopping") */
  stopTimeoutMs: z.number().int().min(0).max(600_000).default(DEFAULT_STOP_TIMEOUT_MS),
  /** named snapshots per workspace, and of the whole state (POST .../snapshots answers 409 past it; docs/configuration.md, "Bounds") */
  maxSnapshots: z.number().int().min(1).max(1_000_000).default(DEFAULT_MAX_SNAPSHOTS),
  /** bytes of JSON of every named snapshot together (a snapshot is kept as those bytes; 409 past it) */
  maxSnapshotBytes: z.number().int().min(1024).default(DEFAULT_MAX_SNAPSHOT_BYTES),
  /** rewritten template rows that created workspaces keep in memory, all together (docs/architecture.md, "Workspaces on demand") */
  workspaceCacheRows: z.number().int().min(0).default(DEFAULT_CACHED_ROWS),
  /**
   * the default workspace, by id or name (src/core/default-workspace.ts): where the CLI, MCP, the
   * inspector and the dashboard work when not told; absent: the first sandbox-mode fixture workspace
   */
  defaultWorkspace: z.string().min(1).optional(),
  /** run as the parity proxy in front of a real API (docs/parity.md); absent: no proxy */
  proxy: ProxyOptionsSchema.optional(),
});

export type SandboxOptions = z.input<typeof SandboxOptionsSchema>;
export type ResolvedOptions = z.output<typeof SandboxOptionsSchema>;

export function resolveOptions(options: SandboxOptions = {}): ResolvedOptions {
  // parsed once per sandbox: zod's compiled fast path (generated on an object schema's first
  // parse) would cost a start more than it ever saves here
  const parsed = SandboxOptionsSchema.safeParse(
    {
      internalApiKey: process.env.SANDBOX_INTERNAL_API_KEY || undefined,
      ...options,
    },
    { jitless: true },
  );
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`Invalid sandbox option ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

export const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
