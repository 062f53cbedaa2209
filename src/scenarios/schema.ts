import { z } from 'zod';
import { parseBoundedDuration } from '../core/duration.ts';

/**
 * A scenario file (scenarios/*.json): a named list of steps that script a hard
 * case end to end. Strings may use `{{name}}` variables: captured values,
 * `keys.live`, `keys.sandbox`, `keys.liveRead`, `keys.sandboxRead`,
 * `workspaces.live`, `workspaces.sandbox`, `receivers.<name>.url`, and `run`
 * (unique per run, for idempotency keys). docs/scenarios.md has the reference.
 */
const Json = z.unknown();

/**
 * A time: milliseconds as a number, or the CLI's duration text (`250ms`, `2s`,
 * `5m`, `1h`, `2d`; src/core/duration.ts), within bounds; a mistake names the field.
 */
const Duration = (field: string, min: number, max: number) =>
  z.union([z.number(), z.string()]).transform((value, ctx) => {
    try {
      return parseBoundedDuration(field, value, min, max);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  });

/** what POST /__sandbox/clock/advance accepts at most */
const TEN_YEARS_MS = 10 * 365 * 86_400_000;
/** the longest a delivery fault rule may hold or delay (MAX_DELIVERY_DELAY_MS, src/core/fault-rule.ts) */
const WEEK_MS = 7 * 86_400_000;

/** addFault's rule is the control plane's body, except that its latencyMs may be written as a duration too. */
const FaultBody = z.record(z.string(), Json).transform((fault, ctx) => {
  if (typeof fault.latencyMs !== 'string') return fault;
  try {
    return { ...fault, latencyMs: parseBoundedDuration('latencyMs', fault.latencyMs, 0, 120_000) };
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message, path: ['latencyMs'] });
    return z.NEVER;
  }
});

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

export const ControlActionSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('advanceClock'), ms: Duration('ms', 0, TEN_YEARS_MS) }),
  z.strictObject({ action: z.literal('revokeKey'), keyId: z.string() }),
  z.strictObject({
    action: z.literal('createKey'),
    workspaceId: z.string(),
    scopes: z.array(z.string()).nullable().optional(),
    captureKey: z.string(),
    captureId: z.string().optional(),
  }),
  z.strictObject({ action: z.literal('addFault'), fault: FaultBody }),
  /** a delivery fault rule (docs/webhooks.md, "Testing your receiver"), in the CLI's words: durations as text */
  z.strictObject({
    action: z.literal('addDeliveryFault'),
    event: z.string().optional(),
    subscriptionId: z.string().optional(),
    workspaceId: z.string().optional(),
    duplicate: z.boolean().optional(),
    reorder: Duration('reorder', 1, WEEK_MS).optional(),
    latency: Duration('latency', 0, WEEK_MS).optional(),
    drop: z.boolean().optional(),
    /** an ISO time, or a duration from now (a number is milliseconds) */
    holdUntil: z.union([z.number().int().min(1), z.string()]).optional(),
    times: z.number().int().min(1).optional(),
    probability: z.number().min(0).max(1).optional(),
    seed: z.number().int().optional(),
  }),
  z.strictObject({ action: z.literal('clearFaults') }),
  z.strictObject({ action: z.literal('exhaustRateLimit'), workspaceId: z.string() }),
  z.strictObject({ action: z.literal('reset') }),
  /** emulated suspension after repeated 429s (docs/api-notes.md, "Rate limits") */
  z.strictObject({
    action: z.literal('setSuspension'),
    enabled: z.boolean(),
    maxViolations: z.number().int().min(1).optional(),
    windowMs: Duration('windowMs', 1000, 86_400_000).optional(),
    durationMs: Duration('durationMs', 1000, 7 * 86_400_000).optional(),
  }),
  z.strictObject({ action: z.literal('readOtp'), target: z.string(), capture: z.string() }),
  /** GET a control-plane route and capture values from its `data` (paths like `organizations[0].id`) */
  z.strictObject({ action: z.literal('get'), path: z.string().startsWith('/'), capture: z.record(z.string(), z.string()) }),
  /** the API names no departure list, so scenarios find a bookable departure through the control plane */
  z.strictObject({ action: z.literal('findDeparture'), workspaceId: z.string(), minSeats: z.number().int().min(1).default(1), capture: z.string() }),
]);

/** The control actions, in the order the docs list them. */
export const CONTROL_ACTIONS: readonly string[] = ControlActionSchema.options.map((option) => option.shape.action.value);

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
    advanceMs: Duration('advanceMs', 0, TEN_YEARS_MS).default(0),
    /** looks at most this many times (each look waits up to 50 ms of real time) */
    attempts: z.number().int().min(1).max(400).default(100),
  }),
});

/** A repeat step's own fields; its steps are checked one by one (src/scenarios/validate.ts). */
export const RepeatStepShape = z.strictObject({ name: z.string().optional(), repeat: z.number().int().min(1).max(1000), steps: z.array(z.unknown()).min(1) });

/** The keys that start a step, one per kind of step. */
export const STEP_KINDS = ['request', 'control', 'receiver', 'waitForDelivery', 'repeat'] as const;

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
  sandbox: z
    .strictObject({ clock: z.enum(['real', 'manual']).default('manual'), enforceRateLimits: z.boolean().default(true) })
    .default({ clock: 'manual', enforceRateLimits: true }),
  steps: z.array(StepSchema).min(1),
});
export type Scenario = z.infer<typeof ScenarioSchema>;
