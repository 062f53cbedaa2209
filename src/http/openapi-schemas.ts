import { z } from 'zod';

/**
 * The zod schemas of every route, turned into OpenAPI schemas by zod's own
 * registry conversion. A schema given an id with
 * `.meta({ id })` (so held by zod's global registry) is written once, in
 * `components.schemas`, and every other place says `$ref` to it: converted
 * alone, each route's schemas copied the error body, with its 62-code
 * enum, into every error response (4.2 MB of document).
 *
 * zod converts a registry in one pass: what the registry holds becomes a
 * `$ref` to `uri(id)` wherever another schema uses it. So every route schema
 * not named joins the registry under a private key, converted in the same pass,
 * and its body goes inline in its operation. Input (bodies, parameters) and
 * output (responses) are two passes, as zod's `io` option is per conversion: a
 * named schema used on both sides is two components, `X` and `XInput`, as
 * fastify-type-provider-zod names them.
 */
type Json = Record<string, unknown>;
type Io = 'input' | 'output';

const SCHEMAS = '#/components/schemas/';
const componentName = (id: string, io: Io) => (io === 'input' ? `${id}Input` : id);
export const schemaRef = (name: string) => `${SCHEMAS}${name}`;

/** The id a schema was given with `.meta({ id })`, if any. */
export const schemaIdOf = (schema: unknown): string | undefined => z.globalRegistry.get(schema as z.ZodType)?.id;

export class OpenApiSchemas {
  /** schema -> the name it gets if it turns out to be shared (the first operation and part that uses it), and its uses */
  readonly #pending: Record<Io, Map<z.ZodType, { name: string; uses: number }>> = { input: new Map(), output: new Map() };
  #converted: Record<Io, Map<z.ZodType, Json>> | null = null;
  #components: Record<string, Json> = {};

  /** Asks for `schema` to be converted for `io`; read it with `json` after `convert`. `name` serves if another route's schema uses it. */
  add(schema: unknown, io: Io, name: string): void {
    const pending = this.#pending[io].get(schema as z.ZodType);
    if (pending) pending.uses++;
    else this.#pending[io].set(schema as z.ZodType, { name: componentName(name, io), uses: 1 });
  }

  convert(): void {
    this.#converted = { input: this.#pass('input'), output: this.#pass('output') };
  }

  /** The OpenAPI schema of `schema` written out, even if it is a component: parameters are listed one by one from it. */
  body(schema: unknown, io: Io): Json {
    const json = this.json(schema, io);
    return typeof json.$ref === 'string' ? this.#components[json.$ref.slice(SCHEMAS.length)]! : json;
  }

  /** The OpenAPI schema of `schema` (added before `convert`): a `$ref` if it is named. */
  json(schema: unknown, io: Io): Json {
    const json = this.#converted?.[io].get(schema as z.ZodType);
    if (!json) throw new Error(`OpenApiSchemas: a schema was not added for ${io} before convert()`);
    return json;
  }

  /** The named schemas `used` refers to, directly or through one another: unused ones would be noise (and a Redocly warning). */
  components(used: unknown): Record<string, Json> {
    const out: Record<string, Json> = {};
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(visit);
      if (value === null || typeof value !== 'object') return;
      for (const [key, inner] of Object.entries(value)) {
        if (key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMAS)) {
          const name = inner.slice(SCHEMAS.length);
          if (!(name in out) && this.#components[name]) {
            out[name] = this.#components[name];
            visit(out[name]);
          }
        } else visit(inner);
      }
    };
    visit(used);
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }

  #pass(io: Io): Map<z.ZodType, Json> {
    const registry = z.registry<{ id: string }>();
    for (const [id, schema] of z.globalRegistry._idmap) registry.add(schema as z.ZodType, { id: componentName(id, io) });
    const keys = new Map<z.ZodType, string>();
    // a route's schema used by several answers (the wizard's 200 and 201), or inside another route's
    // schema (a person, and { data: person }), is a component too, named after its first use
    const used = new Set<string>();
    for (const [schema, { name, uses }] of this.#pending[io]) {
      if (registry.has(schema)) continue;
      keys.set(schema, name);
      registry.add(schema, { id: name });
      if (uses > 1) used.add(name);
    }
    const { schemas } = z.toJSONSchema(registry, { io, target: 'openapi-3.0', unrepresentable: 'any', uri: schemaRef, override: bareRef }) as {
      schemas: Record<string, Json>;
    };
    for (const json of Object.values(schemas)) delete json.$id; // zod names each member by its uri; the document places them itself
    collectRefs(schemas, used);
    const routeKeys = new Set(keys.values());
    for (const [id, json] of Object.entries(schemas)) if (!routeKeys.has(id) || used.has(id)) this.#components[id] = json;
    const out = new Map<z.ZodType, Json>();
    for (const schema of this.#pending[io].keys()) {
      const key = keys.get(schema);
      out.set(schema, key && !used.has(key) ? schemas[key]! : { $ref: schemaRef(registry.get(schema)!.id) });
    }
    return out;
  }
}

/**
 * OpenAPI 3.0 ignores what sits beside a `$ref`, so zod wraps a named schema
 * used with a change (`.optional()`, `.nullable()`, a description) in a
 * one-member `allOf`. With nothing beside it the wrapper says nothing, and
 * Redocly warns about it; beside `nullable`, 3.0 wants the `type` too.
 */
function bareRef({ zodSchema, jsonSchema }: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const allOf = jsonSchema.allOf as Record<string, unknown>[] | undefined;
  if (allOf?.length !== 1 || typeof allOf[0]!.$ref !== 'string') return;
  if (Object.keys(jsonSchema).length === 1) {
    delete jsonSchema.allOf;
    Object.assign(jsonSchema, allOf[0]);
  } else if (jsonSchema.nullable === true && jsonSchema.type === undefined) {
    const inner = (zodSchema as z.ZodNullable<z.ZodType>)._zod.def.innerType?._zod.def.type;
    if (inner === 'object' || inner === 'array') jsonSchema.type = inner;
  }
}

/** The component names `value` refers to with `$ref`. */
function collectRefs(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) return value.forEach((v) => collectRefs(v, into));
  if (value === null || typeof value !== 'object') return;
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$ref' && typeof inner === 'string' && inner.startsWith(SCHEMAS)) into.add(inner.slice(SCHEMAS.length));
    else collectRefs(inner, into);
  }
}
