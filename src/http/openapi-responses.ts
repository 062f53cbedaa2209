import { type OpenApiSchemas, schemaIdOf } from './openapi-schemas.ts';
import { REASONS } from './openapi-names.ts';

/**
 * The response objects of the OpenAPI document, shared to keep it small. Each one
 * declares the headers every answer carries, so answers alike (the same body
 * schema, media type and mark, success or error) are written once, in
 * `components.responses`, whatever their status, and each operation says
 * `$ref` to it: the error answers (`Error`, the `{error, code}` body of 400,
 * 404, 409, 413, 414, 415; `ErrorInferred`; `RateLimitError`), and the success
 * answers of routes that share their schema (`GET` and `PUT
 * /__sandbox/suspension`). A response's description is its status's reason
 * (`Not Found`), or for one shared by several statuses the list of them. An
 * answer only one operation gives stays inline.
 */

/** A response's body as declared: a zod schema, or none (204). */
export type Body = { schema: unknown; mediaType: string } | null;

/** The answers alike: the operation that gave the first (its component's name when the body has no id), how many give it, and with which statuses. */
interface Group {
  operation: string;
  uses: number;
  statuses: Set<string>;
  name?: string;
}

const headerRef = (name: keyof typeof HEADER_COMPONENTS) => ({ $ref: `#/components/headers/${name}` });

/**
 * `components.headers`: the ones every answer carries, and the reason of a refusal. Short keys
 * (the header's name is the key where a response uses one): every response names them again,
 * and in the generated types each use is a line `"X-RateLimit-Remaining": components["headers"]["Remaining"]`.
 */
export const HEADER_COMPONENTS = {
  RequestID: { description: 'X-Request-ID: the request id, echoed when the caller sent a sane one', schema: { type: 'string' } },
  Limit: { description: 'X-RateLimit-Limit: requests allowed in the current window', schema: { type: 'integer' } },
  Remaining: { description: 'X-RateLimit-Remaining: requests left in the current window', schema: { type: 'integer' } },
  Reset: { description: 'X-RateLimit-Reset: Unix time (seconds) when the window resets', schema: { type: 'integer' } },
  Reason: {
    description:
      "X-Sandbox-Reason, sandbox only: why the sandbox refused the request, as `CODE sentence` (the code is the error body's where it has one). Production does not send it; the body stays exactly as documented",
    schema: { type: 'string' },
    'x-sandbox-only': true,
  },
};

const STANDARD_HEADERS = {
  'X-Request-ID': headerRef('RequestID'),
  'X-RateLimit-Limit': headerRef('Limit'),
  'X-RateLimit-Remaining': headerRef('Remaining'),
  'X-RateLimit-Reset': headerRef('Reset'),
};
/** a refusal's reason travels beside the documented error body (docs/api-notes.md, "Reasons") */
const ERROR_HEADERS = { ...STANDARD_HEADERS, 'X-Sandbox-Reason': headerRef('Reason') };

export class Responses {
  readonly components: Record<string, unknown> = {};
  /** body schema (null: no body) -> `error mediaType inferred` -> its group */
  readonly #groups = new Map<unknown, Map<string, Group>>();
  /** component name -> the group it was given to */
  readonly #names = new Map<string, Group>();
  constructor(private readonly schemas: OpenApiSchemas) {}

  /**
   * Counts an answer of the operation `operation` (PascalCase operationId), before the schemas
   * are converted. True for the first answer of its kind: its body is written once however many
   * operations give it, so only then is its schema to be converted (`OpenApiSchemas.add`).
   */
  add(status: string, body: Body, inferred: boolean, operation: string): boolean {
    let byKey = this.#groups.get(body?.schema ?? null);
    if (!byKey) this.#groups.set(body?.schema ?? null, (byKey = new Map()));
    const group = byKey.get(keyOf(status, body, inferred));
    if (group) group.uses++;
    else byKey.set(keyOf(status, body, inferred), { operation, uses: 1, statuses: new Set([status]) });
    group?.statuses.add(status);
    return !group;
  }

  /** The response object of an answer counted with `add`, or a `$ref` to the component it shares. */
  of(status: string, body: Body, inferred: boolean): Record<string, unknown> {
    const group = this.#groups.get(body?.schema ?? null)?.get(keyOf(status, body, inferred));
    if (!group) throw new Error(`Responses: a ${status} answer was not counted before of()`);
    const object: Record<string, unknown> = { description: describe(group.statuses), headers: Number(status) >= 400 ? ERROR_HEADERS : STANDARD_HEADERS };
    if (body) object.content = { [body.mediaType]: { schema: this.schemas.json(body.schema, 'output') } };
    if (inferred) object['x-sandbox-inferred'] = true;
    const id = body ? schemaIdOf(body.schema) : undefined;
    // an error body with an id is a component even for one operation: the error answers are read together
    if (group.uses < 2 && !(id && Number(status) >= 400)) return object;
    group.name ??= this.#nameOf(group, id, inferred);
    this.components[group.name] ??= object;
    return { $ref: `#/components/responses/${group.name}` };
  }

  /** `Error`, `RateLimitErrorInferred` after the body's id; else after the first operation and the statuses, `GetSandboxClock200`, `CreateSandboxFault200Or201`. */
  #nameOf(group: Group, id: string | undefined, inferred: boolean): string {
    const mark = inferred ? 'Inferred' : '';
    const byId = id && `${id === 'ErrorBody' ? 'Error' : id.replace(/Body$/, '')}${mark}`;
    const name = byId && !this.#names.has(byId) ? byId : `${group.operation}${[...group.statuses].sort().join('Or')}${mark}`;
    if (this.#names.has(name)) throw new Error(`Responses: two answers would be components.responses.${name}`);
    this.#names.set(name, group);
    return name;
  }
}

/** Answers alike share a response object whatever their status; an error's carries X-Sandbox-Reason too. */
const keyOf = (status: string, body: Body, inferred: boolean) => `${Number(status) >= 400 ? 'error' : 'success'} ${body?.mediaType ?? ''} ${inferred}`;
/** `Not Found`; for several statuses, `400 Bad Request, 404 Not Found, ...` */
const reason = (status: string) => REASONS[status] ?? `HTTP ${status}`;
const describe = (statuses: Set<string>) =>
  statuses.size === 1
    ? reason([...statuses][0]!)
    : [...statuses]
        .sort()
        .map((s) => `${s} ${reason(s)}`)
        .join(', ');
