import { z } from 'zod';
import { FaultRuleSchema } from '../control/contracts/faults.ts';
import { RequestEventSchema } from '../core/stream-events.ts';
import { RunReportSchema } from '../report/schema.ts';

/**
 * The failure bundle (docs/cli.md, "The failure bundle"): one gzip-compressed JSON file that holds
 * the whole story of a run, so that a red CI job can be opened on a laptop (`sandbox open`). This
 * schema is its documentation as much as its check: every field says what it holds. Secrets are
 * redacted by the one rule (src/core/redact.ts) before anything is written.
 */
export const BUNDLE_FORMAT = 'travel-commerce-sandbox/bundle';
/** raised when a field changes meaning or goes; a reader refuses a bundle newer than it knows */
export const BUNDLE_VERSION = 1;
/** the file name users see in docs, the Action and `exec --help` */
export const DEFAULT_BUNDLE_FILE = 'sandbox-bundle.json.gz';

/** A table by column of up to 2,000 rows of a partition (./state-table.ts, ./state-pieces.ts). */
const StateTableSchema = z.object({
  rows: z.number().int().min(0),
  columns: z.record(z.string(), z.array(z.unknown())),
  dictionaries: z.record(z.string(), z.array(z.unknown())).optional(),
  absent: z.record(z.string(), z.array(z.number().int())).optional(),
});

/** A partition as its tables, in order; a bundle written before tables were cut holds one table, read as a list of one. */
const PartitionSchema = z.union([z.array(StateTableSchema), StateTableSchema.transform((table) => [table])]);

const ClockSchema = z.object({
  mode: z.enum(['real', 'manual']).describe('the mode the run’s clock was in'),
  now: z.string().describe('the global time when the bundle was saved (ISO 8601)'),
  nowMs: z.number(),
  workspaces: z
    .array(z.object({ workspaceId: z.string(), offsetMs: z.number().describe('its own advance on top of the global time') }))
    .describe('every workspace whose clock was advanced alone'),
});

const RequestsSchema = z.object({
  entries: z.array(RequestEventSchema).describe('the request log, oldest first: method, path, status, reason, warnings, and headers and bodies where kept'),
  capacity: z.number().int().describe('how many entries the log keeps (1,000)'),
  seen: z.number().int().describe('requests the log saw since the start (or its last clear)'),
  wrapped: z.boolean().describe('true when seen > entries: the oldest requests of the run are not in the bundle'),
  withDetail: z.number().int().describe('entries that carry their headers and bodies (the newest; the capture bounds, docs/configuration.md)'),
});

export const BundleSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  bundleVersion: z.number().int().min(1),
  savedAt: z.string().describe('wall-clock time the bundle was written'),
  sandbox: z.object({
    version: z.string().describe('the travel-commerce-sandbox version that wrote it'),
    url: z.string().nullable().describe('where the sandbox served the run (the logged paths are relative to it; HAR URLs are made from it)'),
    options: z.record(z.string(), z.unknown()).describe('the sandbox options of the run, redacted (createSandbox’s, resolved)'),
    defaultWorkspaceId: z.string().nullable(),
  }),
  run: z
    .object({ command: z.array(z.string()), exitCode: z.number().int() })
    .nullable()
    .describe('`sandbox exec`: the command and the exit code; null for `bundle save` and GET /__sandbox/bundle'),
  clock: ClockSchema,
  state: z
    .object({ schemaVersion: z.number().int(), collections: z.record(z.string(), z.record(z.string(), PartitionSchema)) })
    .describe(
      'every workspace’s final state: collection -> partition (a workspace id) -> its tables by column of up to 2,000 rows each, in order (./state-table.ts); webhook deliveries with their attempts are webhookDeliveries',
    ),
  requests: RequestsSchema,
  faults: z.array(FaultRuleSchema).describe('the fault rules left when it was saved'),
  report: RunReportSchema,
});
export type Bundle = z.output<typeof BundleSchema>;
export type BundleRun = NonNullable<Bundle['run']>;
