/**
 * The parity proxy's shared shapes (docs/parity.md). The proxy (src/parity/proxy*.ts)
 * sees each /v1 exchange twice, the target's answer and the sandbox's replay,
 * and hands both to a ParityRecorder (src/parity/report*.ts), which compares
 * them by shape and by rule and keeps the differences. `GET /__sandbox/parity`
 * answers `{data: ParityReportBody}`.
 */

/** the kinds of difference (docs/parity.md, "Reading the report") */
export const DIFFERENCE_KINDS = ['status', 'missing-field', 'extra-field', 'type', 'header', 'error', 'enum', 'unknown-id'] as const;
export type DifferenceKind = (typeof DIFFERENCE_KINDS)[number];

/** One difference, counted over every exchange where it appeared. */
export interface Difference {
  kind: DifferenceKind;
  /** the request's method, upper case */
  method: string;
  /** the OpenAPI path template of the operation, e.g. /v1/bookings/{bookingId} */
  path: string;
  /** a JSON path (`data[].brand`, `passengers[0].role`), or the header's name for `header`; '' for `status` */
  field: string;
  /** the target's example value, or its JSON type name when values legitimately differ */
  target: unknown;
  /** the sandbox's example value or type name */
  sandbox: unknown;
  count: number;
  /** the X-Request-Id (the target's) of the first exchange where it appeared */
  requestId: string;
}

/**
 * Why a forwarded request was not compared: one reason each, so that `requests` is always
 * `compared` plus the not-compared counts (docs/parity.md, "Reading the report").
 * - too-large: the target's answer was over --target-max-body, as sent or once inflated
 * - learned: the sandbox did not hold the record and learned it from the target's answer
 * - rate-limited: either side answered 429 (the target's budget is not the sandbox's)
 * - unknown-id: the request carries an id the sandbox neither holds nor could learn, and the two
 *   answers are not the same error status (whose bodies are compared, as any other answer)
 * - no-replay: the sandbox could not replay the request
 */
export const NOT_COMPARED_REASONS = ['too-large', 'learned', 'rate-limited', 'unknown-id', 'no-replay'] as const;
export type NotComparedReason = (typeof NOT_COMPARED_REASONS)[number];

/** Why one exchange is not compared. The proxy sets it on the exchange (too-large, no-replay); the recorder finds the others. */
export interface NotComparedNote {
  reason: NotComparedReason;
  /** too-large: the answer's bytes as the proxy measured them (streamed, or on the wire when it inflates past the limit) */
  bytes?: number;
  /** one sentence for the report, e.g. `too large to compare: 314572800 bytes, over --target-max-body 10485760` */
  detail: string;
}

/** Requests not compared, one line per (reason, method, path template), counted. */
export interface NotCompared {
  reason: NotComparedReason;
  method: string;
  /** the OpenAPI path template of the operation */
  path: string;
  count: number;
  /** the X-Request-Id (the target's, else the proxy's) of the first such request */
  requestId: string;
  /** too-large: the largest seen */
  bytes?: number;
  /** the sentence of the request that gave `bytes` (else the first) */
  detail: string;
}

export interface ParityReportBody {
  /** /v1 requests the proxy forwarded */
  requests: number;
  /** of those, the ones compared; the others are counted in `notCompared`, with their reason */
  compared: number;
  /** most frequent first; `unknown-id` (data, not drift) after the others */
  differences: Difference[];
  /** differences not kept because the report's bound was reached (a count of exchanges); 0 normally */
  omitted?: number;
  /** requests forwarded but not compared, one line per (reason, method, path template): `requests` is `compared` plus their counts */
  notCompared?: NotCompared[];
}

/** one side's answer as the proxy saw it */
export interface Answer {
  status: number;
  /** header names lower case */
  headers: Record<string, string>;
  /** the body parsed as JSON, or undefined when it was empty or not JSON */
  body: unknown;
}

/** One /v1 request and both answers, as the proxy hands it to the recorder. */
export interface Exchange {
  /** the target's X-Request-Id, else the proxy's own id for the request */
  requestId: string;
  method: string;
  /** the request's path without the query, as the client sent it (target ids), e.g. /v1/bookings/bk_123 */
  urlPath: string;
  target: Answer;
  /** the replay's answer; null when the replay could not be made */
  sandbox: Answer | null;
  /** the sandbox did not know the record and the proxy learned it from the target's answer: never drift */
  learned: boolean;
  /** target ids the sandbox did not know and could not learn (reported as `unknown-id`, apart from drift; the exchange is compared only when both sides answered the same error status) */
  unknownIds: string[];
  /**
   * Learning only: per record learned or refused, our schema's fields the
   * target's record gave no fitting value for; left null or out, never guessed
   */
  unmapped?: { id: string; fields: string[] }[];
  /** set by the proxy when the exchange cannot be compared (too large, or not replayed): the recorder lists it, and compares nothing */
  notCompared?: NotComparedNote;
}

/** An ignore rule: differences whose operation path matches the glob (and kind, when given) are dropped. */
export interface IgnoreRule {
  /** a glob over `METHOD /v1/path/{template}` or the path template alone; `*` any run of characters */
  path: string;
  kind?: DifferenceKind;
  /** a glob over the difference's field (`data[].*`, a header's name); every field when absent */
  field?: string;
}

/** What the proxy feeds and the control plane reads. */
export interface ParityRecorder {
  record(exchange: Exchange): void;
  report(): ParityReportBody;
  /** the two answers of the first example of a difference, for the inspector's side-by-side view */
  example(requestId: string): { target: Answer; sandbox: Answer | null } | undefined;
  clear(): void;
}
