import { Ajv, type ValidateFunction } from 'ajv';

/**
 * Checks an answer against the served OpenAPI document: its status
 * must be documented for the operation, and a JSON body must match the
 * documented schema. The HTTP test helper runs it on every response of the
 * suite, so no answer can leave the document unnoticed.
 */
interface Response {
  $ref?: string;
  content?: Record<string, { schema: unknown }>;
}
interface Operation {
  responses: Record<string, Response>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { responses?: Record<string, Response>; schemas?: Record<string, unknown> };
}

/** A response object, or the one of `components.responses` it refers to (error answers are shared). */
const resolved = (doc: Document, response: Response | undefined): Response | undefined =>
  response?.$ref ? doc.components.responses?.[response.$ref.replace('#/components/responses/', '')] : response;

const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: false });
const compiled = new Map<
  string,
  {
    routes: { regex: RegExp; params: number; path: string }[];
    doc: Document;
    validators: Map<string, ValidateFunction>;
    asJsonSchema: (schema: unknown) => unknown;
  }
>();
let documents = 0;

function prepare(docText: string) {
  let entry = compiled.get(docText);
  if (!entry) {
    const doc = JSON.parse(docText) as Document;
    const routes = Object.keys(doc.paths)
      .map((path) => ({
        path,
        params: (path.match(/\{/g) ?? []).length,
        regex: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`),
      }))
      .sort((a, b) => a.params - b.params);
    entry = { doc, routes, validators: new Map(), asJsonSchema: componentsOnce(doc) };
    compiled.set(docText, entry);
  }
  return entry;
}

/**
 * Each of the document's component schemas as a schema of its own (`$id`), which a `$ref` names:
 * Ajv compiles a component once for every operation that refers to it. Compiling each operation's
 * schema with the whole `components` beside it compiled the shared ones again for each (Booking,
 * the error body, ...): 311 validators took 2.4 s, now 0.4 s, in every test worker.
 */
function componentsOnce(doc: Document): (schema: unknown) => unknown {
  const prefix = `openapi-${++documents}-`;
  const local = '#/components/schemas/';
  const idOf = (name: string) => `${prefix}${encodeURIComponent(name)}`;
  // and OpenAPI 3.0's `nullable: true` as JSON Schema: null, or the schema without it. Ajv reads
  // `nullable` only beside `type`, so a nullable reference to a component (zod writes
  // `{nullable: true, allOf: [{$ref}]}`) refused null, while the generated client
  // (openapi-typescript) reads it as `Quote | null`, as the server answers.
  const convert = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(convert);
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'nullable') continue;
      out[key] = key === '$ref' && typeof inner === 'string' && inner.startsWith(local) ? idOf(inner.slice(local.length)) : convert(inner);
    }
    return (value as { nullable?: unknown }).nullable === true ? { anyOf: [{ type: 'null' }, out] } : out;
  };
  for (const [name, schema] of Object.entries(doc.components.schemas ?? {})) ajv.addSchema({ ...(convert(schema) as object), $id: idOf(name) });
  return convert;
}

/**
 * A problem with this answer, or null when the document describes it. `parse` reads the body's
 * JSON (the test helper passes one that keeps the value for the test's own `res.json()`).
 */
export function undocumentedAnswer(
  docText: string,
  method: string,
  url: string,
  status: number,
  contentType: string | undefined,
  body: string,
  parse: (text: string) => unknown = JSON.parse,
): string | null {
  const { doc, routes, validators, asJsonSchema } = prepare(docText);
  const raw = url.split('?')[0]!;
  let pathname = raw;
  try {
    pathname = decodeURIComponent(raw);
  } catch {
    // a malformed escape is matched as sent
  }
  const route = routes.find((r) => r.regex.test(pathname));
  if (!route) return null; // no such route: the router's 404, not an operation's answer
  const operation = doc.paths[route.path]![method.toLowerCase()];
  if (!operation) return null;
  const documented = resolved(doc, operation.responses[String(status)] ?? operation.responses.default);
  if (!documented)
    return `${method} ${route.path} answered ${status}, which the OpenAPI document does not list (${Object.keys(operation.responses).join(', ')})`;
  const schema = documented.content?.['application/json']?.schema;
  if (!schema || !contentType?.includes('application/json')) return null;
  const key = `${method} ${route.path} ${status}`;
  let validate = validators.get(key);
  // its `#/components/schemas/...` refs name the components added once (componentsOnce)
  if (!validate) validators.set(key, (validate = ajv.compile(asJsonSchema(schema) as object)));
  if (validate(parse(body))) return null;
  return `${key}: the body does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}`;
}
