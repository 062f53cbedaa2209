import { z } from 'zod';

/**
 * A scenario file (scenarios/*.json): a named list of steps that script a hard
 * case end to end. Strings may use `{{name}}` variables: captured values,
 * `keys.live`, `keys.sandbox`, `keys.liveRead`, `keys.sandboxRead`,
 * `workspaces.live`, `workspaces.sandbox`, `receivers.<name>.url`, and `run`
 * (unique per run, for idempotency keys). docs/scenarios.md has the reference.
 */
const Json = z.unknown();

export const RequestStepSchema = z.strictObject({
  name: z.string().optional(),
  request: z.strictObject({
    method: z.enum(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']),
    path: z.string().startsWith('/'),
    /** a key value or variable; omit for no Authorization header */
    key: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    body: Json.optional(),
  }),
  expect: z
    .strictObject({
      status: z.union([z.number().int(), z.array(z.number().int())]).optional(),
      /** partial match: every key given must match; "*" means present with any value */
      body: Json.optional(),
      headers: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  /** variable name -> path into the response: `body.data[0].id`, `headers.x-request-id`, `status` */
  capture: z.record(z.string(), z.string()).optional(),
});

const ControlActionSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('advanceClock'), ms: z.number().int().min(0) }),
  z.strictObject({ action: z.literal('revokeKey'), keyId: z.string() }),
  z.strictObject({ action: z.literal('createKey'), workspaceId: z.string(), scopes: z.array(z.string()).nullable().optional(), captureKey: z.string(), captureId: z.string().optional() }),
  z.strictObject({ action: z.literal('addFault'), fault: z.record(z.string(), Json) }),
  z.strictObject({ action: z.literal('clearFaults') }),
  z.strictObject({ action: z.literal('exhaustRateLimit'), workspaceId: z.string() }),
  z.strictObject({ action: z.literal('reset') }),
  /** emulated suspension after repeated 429s (docs/api-notes.md, "Suspension") */
  z.strictObject({ action: z.literal('setSuspension'), enabled: z.boolean(), maxViolations: z.number().int().min(1).optional(), windowMs: z.number().int().min(1000).optional(), durationMs: z.number().int().min(1000).optional() }),
  z.strictObject({ action: z.literal('readOtp'), target: z.string(), capture: z.string() }),
  /** GET a control-plane route and capture values from its `data` (paths like `organizations[0].id`) */
  z.strictObject({ action: z.literal('get'), path: z.string().startsWith('/'), capture: z.record(z.string(), z.string()) }),
  /** the API names no departure list, so scenarios find a bookable departure through the control plane */
  z.strictObject({ action: z.literal('findDeparture'), workspaceId: z.string(), minSeats: z.number().int().min(1).default(1), capture: z.string() }),
]);

export const ControlStepSchema = z.strictObject({ name: z.string().optional(), control: ControlActionSchema });

export const ReceiverStepSchema = z.strictObject({
  name: z.string().optional(),
  /** starts a local webhook receiver on 127.0.0.1 that answers these statuses in turn (the last repeats) */
  receiver: z.strictObject({ name: z.string().regex(/^\w+$/), respond: z.array(z.number().int().min(100).max(599)).min(1) }),
});

export const WaitStepSchema = z.strictObject({
  name: z.string().optional(),
  /** waits until a receiver got a delivery of this event type; advances a manual clock by `advanceMs` between looks */
  waitForDelivery: z.strictObject({
    receiver: z.string(),
    type: z.string(),
    /** how many deliveries of the type it must have seen (default 1) */
    count: z.number().int().min(1).default(1),
    advanceMs: z.number().int().min(0).default(0),
    /** looks at most this many times (each look waits up to 50 ms of real time) */
    attempts: z.number().int().min(1).max(400).default(100),
  }),
});

export type Step =
  | z.infer<typeof RequestStepSchema>
  | z.infer<typeof ControlStepSchema>
  | z.infer<typeof ReceiverStepSchema>
  | z.infer<typeof WaitStepSchema>
  | { name?: string; repeat: number; steps: Step[] };

export const StepSchema: z.ZodType<Step> = z.lazy(() =>
  z.union([
    RequestStepSchema,
    ControlStepSchema,
    ReceiverStepSchema,
    WaitStepSchema,
    z.strictObject({ name: z.string().optional(), repeat: z.number().int().min(1).max(1000), steps: z.array(StepSchema).min(1) }),
  ]),
);

export const ScenarioSchema = z.strictObject({
  $comment: z.string().optional(),
  name: z.string().regex(/^[a-z0-9-]+$/, 'scenario names are lower-case words joined by hyphens'),
  description: z.string(),
  /** how a fresh sandbox for this scenario is started (ignored with --url) */
  sandbox: z.strictObject({ clock: z.enum(['real', 'manual']).default('manual'), enforceRateLimits: z.boolean().default(true) }).default({ clock: 'manual', enforceRateLimits: true }),
  steps: z.array(StepSchema).min(1),
});
export type Scenario = z.infer<typeof ScenarioSchema>;
