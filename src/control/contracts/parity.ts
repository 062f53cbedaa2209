import { z } from 'zod';
import { DIFFERENCE_KINDS, NOT_COMPARED_REASONS } from '../../parity/types.ts';
import { defineRoutes } from '../../http/route-table/contract.ts';

/**
 * The parity report of `sandbox proxy` (docs/parity.md, "Reading the report"): the shapes
 * of src/parity/types.ts as schemas. Each route answers 404 with a reason when the sandbox does not
 * run as a parity proxy (ctx.parity.recorder is null).
 */
export const ParityDifferenceSchema = z
  .object({
    kind: z.enum(DIFFERENCE_KINDS),
    method: z.string(),
    path: z.string().describe('the OpenAPI path template of the operation'),
    field: z.string().describe("a JSON path (data[].brand), a header's name for `header`, '' for `status` and `unknown-id`"),
    target: z.unknown().describe("the target's example value, or its JSON type or form where values legitimately differ"),
    sandbox: z.unknown().describe("the sandbox's example value, type or form"),
    count: z.number().int(),
    requestId: z.string().describe('the request id of the first exchange where it appeared (GET /__sandbox/parity/examples/{requestId})'),
  })
  .meta({ id: 'ParityDifference' });

export const ParityNotComparedSchema = z
  .object({
    reason: z
      .enum(NOT_COMPARED_REASONS)
      .describe(
        "why the requests were not compared: too-large (the answer was over --target-max-body, as sent or once inflated; it reached the client untouched), learned (the sandbox did not hold the record and learned it from the target's answer), rate-limited (either side answered 429), unknown-id (an id the sandbox neither holds nor could learn, and the answers are not the same error status), no-replay (the sandbox could not replay it)",
      ),
    method: z.string(),
    path: z
      .string()
      .describe("the OpenAPI path template of the operation; method and path are `*` on a reason's line for the operations past the report's 500 lines"),
    count: z.number().int(),
    requestId: z.string().describe('the request id of the first such request'),
    bytes: z.number().int().optional().describe('too-large: the largest answer seen, in bytes (streamed, or on the wire when it inflates past the limit)'),
    detail: z.string().describe('one sentence, e.g. "too large to compare: 314572800 bytes, over --target-max-body 10485760"'),
  })
  .meta({ id: 'ParityNotCompared' });

export const ParityReportSchema = z
  .object({
    requests: z.number().int().describe('/v1 requests the proxy forwarded'),
    compared: z.number().int().describe('of those, the ones compared; requests is always compared plus the counts of notCompared'),
    differences: z.array(ParityDifferenceSchema).describe('drift most frequent first, then unknown-id (data, not drift)'),
    omitted: z.number().int().optional().describe('differences not kept: the report holds at most 2,000 lines'),
    notCompared: z
      .array(ParityNotComparedSchema)
      .optional()
      .describe('requests forwarded but not compared, one line per reason and operation, each request with its one reason'),
  })
  .meta({ id: 'ParityReport' });

const ParityAnswerSchema = z.object({
  status: z.number().int(),
  headers: z.record(z.string(), z.string()),
  body: z.unknown().optional(),
});
export const ParityExampleSchema = z
  .object({
    target: ParityAnswerSchema,
    sandbox: ParityAnswerSchema.nullable().describe('null when the replay could not be made'),
  })
  .meta({ id: 'ParityExample' });

export const PARITY_ROUTES = defineRoutes({
  parity: {
    method: 'GET',
    path: '/parity',
    data: ParityReportSchema,
    errors: [404],
    summary: "The parity proxy's differences between the target and the sandbox, most frequent first; 404 unless the sandbox runs as `sandbox proxy`",
  },
  parityExample: {
    method: 'GET',
    path: '/parity/examples/:requestId',
    params: z.object({ requestId: z.string() }),
    data: ParityExampleSchema,
    errors: [404],
    summary: 'The two answers (target, sandbox) of the first example of a difference',
  },
  clearParity: {
    method: 'DELETE',
    path: '/parity',
    data: z.object({ cleared: z.literal(true) }),
    errors: [404],
    summary: 'Start the parity report again from zero',
  },
});
