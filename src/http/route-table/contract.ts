import { z } from 'zod';
import { ErrorBodySchema, errorResponses } from '../error-schemas.ts';

/**
 * The control plane's one contract (docs/control-plane.md, "One contract for the server and the client"). Each route is declared
 * once, as data: method, path, the zod schemas of its params, query and body,
 * and the schema of what it answers. The server registers a route from its
 * entry (`serve`), the typed client calls it from the same entry
 * (`ControlClient.request`), and both take their types from the schemas with
 * `z.infer`, so a handler that answers another shape, or a client method that
 * expects one, is a type error. The tables are in src/control/contracts/, and in the
 * `control-contract.ts` of the areas that have control routes.
 *
 * The toolkit lives in the HTTP layer, below both the areas and the control plane
 * (docs/architecture.md, "Layers"): an area declares and serves its control routes with it (serve.ts)
 * without importing src/control/, which only assembles the plane from the tables.
 */
export type ControlMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
type SuccessStatus = 200 | 201;
/** Error statuses a route answers itself (the request pipeline's own are added by ../openapi.ts). */
type ErrorStatus = 400 | 404 | 409;

export interface ControlRoute {
  method: ControlMethod;
  /** under /__sandbox, with `:name` path parameters */
  path: string;
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  /** what the route answers: the `data` of `{data}`, or the whole body of a raw route */
  data: z.ZodType;
  /** the success statuses; the first is the default (201 for a creation) */
  statuses?: readonly [SuccessStatus, ...SuccessStatus[]];
  errors?: readonly ErrorStatus[];
  /**
   * 'json': the body is `data` itself, not wrapped (GET /openapi.json, GET /state, which
   * send prepared JSON text); 'sse': a Server-Sent Events stream (GET /stream); 'gzip': a gzip
   * file's bytes (GET /bundle, the failure bundle).
   */
  raw?: 'json' | 'sse' | 'gzip';
  summary?: string;
  /** the OpenAPI operationId, when the derived one (src/http/openapi-names.ts) is not unique or reads badly */
  operationId?: string;
  /** designed by the sandbox where the API description is silent (docs/api-notes.md) */
  inferred?: boolean;
}

/** Declares a group of routes; `satisfies` keeps each entry's own literal types for inference. */
export const defineRoutes = <const T extends Record<string, ControlRoute>>(routes: T): T => routes;

/** What a route answers (unwrapped from `{data}`), as the client receives it. */
export type RouteData<R extends ControlRoute> = z.output<R['data']>;

/**
 * `{data}` around a route's data, one object for every route that answers the same data schema,
 * so that the OpenAPI document writes their answer once (src/http/openapi-responses.ts).
 */
const wrappers = new WeakMap<z.ZodType, z.ZodType>();
function wrapped(data: z.ZodType): z.ZodType {
  let schema = wrappers.get(data);
  if (!schema) wrappers.set(data, (schema = z.object({ data })));
  return schema;
}

/** The response schemas of a route by status: `{data}` (or the raw body), and its error bodies. */
export function responseSchemas(route: ControlRoute): Record<number, z.ZodType> {
  const success = route.raw ? route.data : wrapped(route.data);
  const out: Record<number, z.ZodType> = {};
  for (const status of route.statuses ?? [200]) out[status] = success;
  for (const status of route.errors ?? []) out[status] = status === 400 ? errorResponses[400] : ErrorBodySchema;
  return out;
}

// ---- the client side -------------------------------------------------------------------------

type Field<R extends ControlRoute, K extends 'params' | 'query' | 'body'> = R[K] extends z.ZodType
  ? undefined extends z.input<R[K]>
    ? { [P in K]?: z.input<R[K]> }
    : { [P in K]: z.input<R[K]> }
  : { [P in K]?: never };
/** What a client call passes: the route's params, query and body, typed by its input schemas. */
export type RouteInput<R extends ControlRoute> = Field<R, 'params'> & Field<R, 'query'> & Field<R, 'body'>;

/** The path of a call, `:name` parameters filled in (percent-encoded). */
export function pathOf(route: ControlRoute, params: Record<string, unknown> | undefined): string {
  return route.path.replace(/:(\w+)/g, (_match, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new Error(`${route.method} ${route.path}: the parameter "${name}" is missing`);
    return encodeURIComponent(String(value));
  });
}
