import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ZodApp } from '../zod-app.ts';
import { responseSchemas, type ControlRoute, type RouteData } from './contract.ts';

/**
 * The server side of the route table (contract.ts): a route registered from its
 * entry, its handler typed by the entry's schemas. Used by the control plane's own
 * groups (src/control/) and by the areas' control parts (src/resources/<area>/control*.ts).
 */

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type RouteOptions = Parameters<ZodApp['route']>[0];

/** A request as a route's handler sees it: params, query and body parsed by the route's schemas. */
export type ControlRequest<R extends ControlRoute> = Omit<FastifyRequest, 'params' | 'query' | 'body'> & {
  params: Out<R['params']>;
  query: Out<R['query']>;
  body: Out<R['body']>;
};

/**
 * What a handler returns: the route's data (wrapped in `{data}` by `serve`); a raw JSON route may
 * return the JSON text itself; an event stream hijacks the reply and returns nothing.
 */
export type ControlAnswer<R extends ControlRoute> = R extends { raw: 'sse' }
  ? void
  : R extends { raw: 'json' }
    ? RouteData<R> | string
    : R extends { raw: 'gzip' }
      ? Buffer
      : RouteData<R>;
export type ControlHandler<R extends ControlRoute> = (request: ControlRequest<R>, reply: FastifyReply) => Promise<ControlAnswer<R>>;

/**
 * Registers one control route from its contract entry. The reply's status is the route's first
 * success status before the handler runs (a handler may pick another of them with `reply.code`).
 */
export function serve<R extends ControlRoute>(
  app: ZodApp,
  route: R,
  handler: ControlHandler<R>,
  options: { bodyLimit?: number; maxJsonDepth?: number; bodyCheckedByHandler?: boolean } = {},
): void {
  const status = route.statuses?.[0] ?? 200;
  const options_: RouteOptions = {
    method: route.method,
    url: route.path,
    ...(options.bodyLimit !== undefined ? { bodyLimit: options.bodyLimit } : {}),
    // the body schema then only documents the route: the handler reads the body (bytes) and checks it
    ...(options.bodyCheckedByHandler ? { validatorCompiler: () => (value: unknown) => ({ value }) } : {}),
    schema: {
      ...(route.params ? { params: route.params } : {}),
      ...(route.query ? { querystring: route.query } : {}),
      ...(route.body ? { body: route.body } : {}),
      response: responseSchemas(route),
    },
    config: {
      ...(route.summary ? { summary: route.summary } : {}),
      ...(route.operationId ? { operationId: route.operationId } : {}),
      ...(route.inferred ? { inferred: true } : {}),
      ...(options.maxJsonDepth !== undefined ? { maxJsonDepth: options.maxJsonDepth } : {}),
    },
    handler: async (request: FastifyRequest, reply: FastifyReply) => {
      reply.code(status);
      const answer: unknown = await handler(request as ControlRequest<R>, reply);
      if (route.raw === 'sse') return reply;
      if (route.raw === 'json') return typeof answer === 'string' ? reply.type('application/json').send(answer) : answer;
      if (route.raw === 'gzip') return reply.type('application/gzip').send(answer);
      return { data: answer };
    },
  };
  app.route(options_);
}

/** Registers every route of a group at once: the handlers object must name exactly the group's routes. */
export function serveAll<T extends Record<string, ControlRoute>>(app: ZodApp, routes: T, handlers: { [K in keyof T]: ControlHandler<T[K]> }): void {
  for (const name of Object.keys(routes) as (keyof T & string)[]) serve(app, routes[name]!, handlers[name]);
}
