import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  ApiError,
  apiError,
  badRequest,
  internalError,
  isApiError,
  payloadTooLarge,
  reasonText,
  unsupportedMediaType,
  validationError,
} from '../core/errors.ts';
import { reasonFor } from '../core/reasons.ts';
import { emptyBodyError } from './json-body.ts';

/**
 * One place turns every failure into the API's error bodies (API description,
 * "Errors"): ApiError as thrown, schema failures as VALIDATION_400, Fastify's
 * body-parsing failures as 400/413/415, and anything unexpected as a 500 whose
 * message is hidden from the client and logged.
 */
export function toApiError(err: unknown, request: FastifyRequest, bodyLimit: number): ApiError {
  if (isApiError(err)) return err;
  if (hasZodFastifySchemaValidationErrors(err)) {
    const where = (err as FastifyError).validationContext ?? 'request';
    return validationError(
      err.validation.map((v) => {
        const path = v.instancePath.replace(/^\//, '').replace(/\//g, '.');
        return `${where}${path ? `.${path}` : ''}: ${v.message}`;
      }),
    );
  }
  const e = err as Partial<FastifyError> & Error;
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(request.headers['content-type']);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return tooLarge(request, bodyLimit);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return emptyBodyError();
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('CONTENT_LENGTH_MISMATCH', 'Content-Length does not match the body');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return apiError(414, 'URI_TOO_LONG', 'A path segment is longer than 200 characters');
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return badRequest('MALFORMED_URL', 'Malformed URL');
  }
  if (e instanceof SyntaxError || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return badRequest('MALFORMED_JSON', 'Malformed JSON body');
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError(e.statusCode, { error: e.message || 'Bad request' });
  }
  request.log.error({ err }, 'unhandled error');
  if (process.env.SANDBOX_DEBUG_ERRORS) console.error(err);
  return internalError();
}

/** 413, with the size sent when the request said it (Content-Length) */
function tooLarge(request: FastifyRequest, bodyLimit: number): ApiError {
  const sent = Number(request.headers['content-length']);
  const size = Number.isFinite(sent) && sent > 0 ? `the body has ${sent} bytes; ` : '';
  return payloadTooLarge(bodyLimit).because('PAYLOAD_TOO_LARGE', `${size}the limit is ${bodyLimit} bytes (the bodyLimit option)`);
}

/** Sends an error's documented body; its reason (docs/api-notes.md "Reasons") goes beside it, in X-Sandbox-Reason and the request log. */
export function sendApiError(reply: FastifyReply, error: ApiError): FastifyReply {
  reply.code(error.statusCode);
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  const reason = reasonFor(error);
  if (reason) {
    const text = reasonText(reason);
    reply.header('x-sandbox-reason', text);
    reply.request.reason = text;
  }
  return reply.type('application/json').send(error.body);
}
