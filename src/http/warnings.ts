import type { FastifyInstance, FastifyRequest } from 'fastify';
import { validationError, type ApiError } from '../core/errors.ts';
import { formatWarning, warning, type SandboxWarning } from '../core/warnings.ts';
import type { SandboxContext } from '../context.ts';
import { unknownFields } from './unknown-fields.ts';

/**
 * Warnings wherever the sandbox accepted a request only by guessing
 * (docs/api-notes.md "Warnings"). Two sources, both before the route runs, so
 * strict mode refuses before anything is written:
 * - preValidation: body keys the route's schema does not know (ignored);
 * - preHandler: the route's own `config.warnings(body)`, on the validated body.
 * Registered on the root, so they run before the /v1 scope's idempotency hook:
 * a strict refusal comes before an Idempotency-Key is claimed. The request hooks copy `request.warnings` onto
 * the request-log entry (and so onto the SSE stream and the dashboard).
 */
export const WARNING_HEADER = 'x-sandbox-warning';

declare module 'fastify' {
  interface FastifyRequest {
    warnings: SandboxWarning[] | null;
  }
  interface FastifyContextConfig {
    /** warnings for a validated body: accepted values outside what the sandbox knows */
    warnings?: (body: never) => SandboxWarning[];
  }
}

export function registerWarningHooks(app: FastifyInstance, ctx: SandboxContext): void {
  app.decorateRequest('warnings', null);

  // callback style: these run on every request and almost always find nothing (docs/benchmarks.md)
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.area !== 'api' || request.body === undefined) return done();
    const unknown = unknownFields(request.routeOptions.schema?.body, request.body);
    if (unknown.length === 0) return done();
    try {
      addWarnings(
        request,
        [warning('UNKNOWN_FIELD', `ignored ${unknown.join(', ')}: not a field of ${request.method} ${request.routeOptions.url ?? request.url}`)],
        ctx.options.strict,
      );
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  app.addHook('preHandler', (request, _reply, done) => {
    const warn = request.routeOptions.config?.warnings as ((body: unknown) => SandboxWarning[]) | undefined;
    if (!warn || request.area !== 'api') return done();
    try {
      addWarnings(request, warn(request.body), ctx.options.strict);
    } catch (err) {
      return done(err as Error);
    }
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.warnings?.length) reply.header(WARNING_HEADER, request.warnings.map(formatWarning).join('; '));
    done(null, payload);
  });
}

/** In strict mode a warning is a 400 VALIDATION_400 (each detail `CODE: message`); the header still names it. */
function addWarnings(request: FastifyRequest, warnings: SandboxWarning[], strict: boolean): void {
  if (warnings.length === 0) return;
  (request.warnings ??= []).push(...warnings);
  if (strict) {
    throw validationError(warnings.map(formatWarning), 'Strict mode: the sandbox would have had to guess to accept this request');
  }
}

/**
 * Warnings about the state of what a route returns (a subscription the sandbox
 * disabled), not about anything the request made the sandbox guess: strict mode
 * does not refuse them. A route adds them from its handler.
 */
export function addStateWarnings(request: FastifyRequest, warnings: SandboxWarning[]): void {
  if (warnings.length > 0) (request.warnings ??= []).push(...warnings);
}

/** The warnings of a request, for its request-log entry (absent when there are none). */
export const warningsOf = (request: FastifyRequest): { warnings?: SandboxWarning[] } => (request.warnings?.length ? { warnings: request.warnings } : {});

/**
 * A limit the sandbox inferred where the API description states none (INFERRED_LIMIT;
 * docs/divergences.md): by default the request goes on with the warning; under
 * --strict it is refused with the rule's own error, the warning as its reason.
 */
export function inferredLimit(request: FastifyRequest, strict: boolean, message: string, refusal: () => ApiError): void {
  const inferred = warning('INFERRED_LIMIT', message);
  if (strict) throw refusal().because('INFERRED_LIMIT', `${message} (refused under --strict)`);
  (request.warnings ??= []).push(inferred);
}
