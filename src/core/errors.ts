/**
 * ApiError and the catalogue of error bodies the API returns
 * (API description, "Errors"). Errors are thrown, never hand-built in routes.
 */
import type { ErrorCode } from './error-codes.ts';

export type ErrorBody = { error: string } & Record<string, unknown>;

/**
 * Why the sandbox refused a request: a stable code and one sentence.
 * It travels beside the documented body, never in it: the `X-Sandbox-Reason`
 * header, the request log's `reason`, the stream, `sandbox logs`.
 */
export interface Reason {
  code: string;
  message: string;
}

export class ApiError extends Error {
  reason: Reason | null = null;

  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.error);
  }

  /** Attaches the reason (`throw unauthorized().because('KEY_REVOKED', '...')`); the body is unchanged. */
  because(code: string, message: string): this {
    this.reason = { code, message };
    return this;
  }
}

/** Longest X-Sandbox-Reason value sent: one line a person reads, never a dump. */
const REASON_MAX_LENGTH = 512;

/**
 * The one-line header value of a reason: `CODE sentence`. Header values must be
 * visible ASCII (Node throws on anything else, which would turn a refusal into
 * a 500), so other characters become `?`.
 */
export function reasonText(reason: Reason): string {
  const text = `${reason.code} ${reason.message}`.replace(/[^\x20-\x7e]/g, '?');
  return text.length > REASON_MAX_LENGTH ? `${text.slice(0, REASON_MAX_LENGTH - 3)}...` : text;
}

export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;

/** 400 with the documented validation shape: {error, code: VALIDATION_400, details: [{message}]} */
export const validationError = (messages: string[], error = 'Validation failed') =>
  new ApiError(400, { error, code: 'VALIDATION_400', details: messages.map((message) => ({ message })) });

/** An error with a stable `code` next to `error` (catalogue: core/error-codes.ts). */
export const apiError = (status: number, code: ErrorCode, error: string, extra: Record<string, unknown> = {}) =>
  new ApiError(status, { error, code, ...extra });
export const badRequest = (code: ErrorCode, error: string) => apiError(400, code, error);
export const unauthorized = () => new ApiError(401, { error: 'Unauthorized' });
export const forbidden = () => new ApiError(403, { error: 'Forbidden' });
export const notFound = (what: string) => new ApiError(404, { error: `${what} not found` });
export const routeNotFound = (method: string, url: string) => new ApiError(404, { error: `Route ${method} ${url.split('?')[0]} not found` });
export const conflict = (code: ErrorCode, error: string) => apiError(409, code, error);
export const payloadTooLarge = (limitBytes: number) => apiError(413, 'PAYLOAD_TOO_LARGE', `Request body is larger than ${limitBytes} bytes`);
export const unsupportedMediaType = (got: string | undefined) =>
  apiError(415, 'UNSUPPORTED_MEDIA_TYPE', `Unsupported Content-Type${got ? ` "${got}"` : ''}; send application/json`);
export const unprocessable = (code: ErrorCode, error: string) => apiError(422, code, error);
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(429, { error: 'Rate limit exceeded', retry_after: retryAfterSeconds }, { 'retry-after': String(retryAfterSeconds) });
export const internalError = () => apiError(500, 'INTERNAL_ERROR', 'Internal server error');
