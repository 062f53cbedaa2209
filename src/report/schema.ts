import { z } from 'zod';

/**
 * The run report (docs/cli.md, "The run report"): what the /v1 API
 * was asked since the sandbox started (or the report was cleared), from
 * running counters, not from the request log (which keeps 1,000 entries).
 * `sandbox exec` prints it at the end of a run; `sandbox.report()` returns it.
 */
const ExampleSchema = z.object({ requestId: z.string(), method: z.string(), path: z.string(), status: z.number().int() });

export const RunReportSchema = z.object({
  since: z.string().describe('sandbox clock time when counting began (start, or the last DELETE /__sandbox/report)'),
  requests: z.number().int().describe('every /v1 request answered since then'),
  operations: z
    .array(
      z.object({
        operationId: z.string().nullable().describe('the OpenAPI operationId; null for /v1 paths that match no operation'),
        method: z.string(),
        path: z.string().nullable().describe('the OpenAPI path template; null when no operation matched'),
        requests: z.number().int(),
        statuses: z.record(z.string(), z.number().int()).describe('status code -> count'),
        warnings: z
          .record(z.string(), z.number().int())
          .describe('X-Sandbox-Warning code -> requests of this operation that the sandbox accepted only by guessing that way'),
      }),
    )
    .describe('the operations called, most called first'),
  neverCalled: z.array(z.object({ operationId: z.string(), method: z.string(), path: z.string() })).describe('the /v1 operations nobody called'),
  warnings: z
    .array(z.object({ code: z.string(), count: z.number().int(), example: ExampleSchema.extend({ message: z.string() }) }))
    .describe('every distinct X-Sandbox-Warning code'),
  refusals: z
    .array(z.object({ code: z.string(), count: z.number().int(), example: ExampleSchema.extend({ reason: z.string() }) }))
    .describe('every distinct X-Sandbox-Reason code'),
  rateLimits: z.object({
    refused: z.number().int().describe('429 answers'),
    reported: z.number().int().describe('requests over a limit that were let through (rateLimits: report, or --no-rate-limits)'),
  }),
  webhooks: z.object({
    sent: z.number().int().describe('deliveries whose attempt the receiver accepted (2xx); replays not counted'),
    failed: z.number().int().describe('deliveries that failed for good (no retries left, or 410 Gone)'),
    pending: z.number().int().describe('deliveries still waiting for a first attempt or a retry now'),
  }),
});
export type RunReport = z.output<typeof RunReportSchema>;
