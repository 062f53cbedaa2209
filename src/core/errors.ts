/**
 * ApiError and the catalogue of error bodies the API returns
 * (API description, "Errors"). Errors are thrown, never hand-built in routes.
 */
export type ErrorBody = { error: string } & Record<string, unknown>;

export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.error);
  }
}

export const isApiError = (err: unknown): err is ApiError => err instanceof ApiError;

/** 400 with the documented validation shape: {error, code: VALIDATION_400, details: [{message}]} */
export const validationError = (messages: string[], error = 'Validation failed') =>
  new ApiError(400, { error, code: 'VALIDATION_400', details: messages.map((message) => ({ message })) });

export const badRequest = (error: string) => new ApiError(400, { error });
export const unauthorized = () => new ApiError(401, { error: 'Unauthorized' });
export const forbidden = () => new ApiError(403, { error: 'Forbidden' });
export const notFound = (what: string) => new ApiError(404, { error: `${what} not found` });
export const routeNotFound = (method: string, url: string) =>
  new ApiError(404, { error: `Route ${method} ${url.split('?')[0]} not found` });
export const conflict = (error: string) => new ApiError(409, { error });
export const payloadTooLarge = (limitBytes: number) =>
  new ApiError(413, { error: `Request body is larger than ${limitBytes} bytes` });
export const unsupportedMediaType = (got: string | undefined) =>
  new ApiError(415, {
    error: `Unsupported Content-Type${got ? ` "${got}"` : ''}; send application/json`,
  });
export const unprocessable = (error: string) => new ApiError(422, { error });
export const rateLimited = (retryAfterSeconds: number) =>
  new ApiError(
    429,
    { error: 'Rate limit exceeded', retry_after: retryAfterSeconds },
    { 'retry-after': String(retryAfterSeconds) },
  );
export const internalError = () => new ApiError(500, { error: 'Internal server error' });
