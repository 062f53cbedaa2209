/**
 * The fields whose value comes from a small documented set, read off the response schemas of the
 * OpenAPI document the sandbox generates (src/http/openapi.ts): `data.status` of GET
 * /v1/bookings/{id} is one of pending, confirmed, cancelled, completed. Only these fields are
 * compared by value (the `enum` kind); every other value may legitimately differ.
 */
type Json = Record<string, unknown>;
/** a larger set is a catalogue (the error codes), not a small documented set */
const MAX_ENUM_VALUES = 32;
/** the document's schemas nest a few levels; a bound keeps a recursive $ref from walking forever */
const MAX_DEPTH = 24;
const NO_ENUMS: ReadonlyMap<string, ReadonlySet<string>> = new Map();

/** `passengers[0].role` and `data[].status` are looked up as `passengers[].role`, `data[].status`. */
export const enumPathOf = (field: string): string => field.replace(/\[\d+\]/g, '[]');

export class EnumIndex {
  #document: Json | null = null;
  readonly #byOperation = new Map<string, ReadonlyMap<string, ReadonlySet<string>>>();

  constructor(private readonly documentText: () => string) {}

  /** JSON path (`[]` for any index) -> its documented values, for one answer of one operation. */
  enumsOf(method: string, template: string, status: number): ReadonlyMap<string, ReadonlySet<string>> {
    const key = `${method} ${template} ${status}`;
    const known = this.#byOperation.get(key);
    if (known) return known;
    const responses = ((this.document().paths as Json | undefined)?.[template] as Json | undefined)?.[method.toLowerCase()] as Json | undefined;
    const response = (responses?.responses as Json | undefined)?.[String(status)];
    // a status the operation does not document has no schema: nothing to compare by value (and nothing cached, so a client cannot grow the map)
    if (response === undefined) return NO_ENUMS;
    const out = new Map<string, Set<string>>();
    const schema = ((this.resolve(response).content as Json | undefined)?.['application/json'] as Json | undefined)?.schema;
    if (schema !== undefined) this.walk(schema, '', out, 0);
    this.#byOperation.set(key, out);
    return out;
  }

  private document(): Json {
    this.#document ??= JSON.parse(this.documentText()) as Json;
    return this.#document;
  }

  /** `{$ref: '#/components/schemas/Booking'}` -> the schema it names */
  private resolve(node: unknown): Json {
    let current = node as Json;
    for (let hops = 0; hops < 8 && typeof current?.$ref === 'string'; hops++) {
      const parts = (current.$ref as string).replace(/^#\//, '').split('/');
      current = parts.reduce<unknown>((at, part) => (at as Json | undefined)?.[part], this.document()) as Json;
    }
    return current ?? {};
  }

  private walk(node: unknown, path: string, out: Map<string, Set<string>>, depth: number): void {
    if (depth > MAX_DEPTH) return;
    const schema = this.resolve(node);
    if (Array.isArray(schema.enum) && schema.enum.length <= MAX_ENUM_VALUES && schema.enum.every((v) => typeof v !== 'object' || v === null)) {
      const set = out.get(path) ?? new Set<string>();
      for (const value of schema.enum) if (value !== null) set.add(String(value));
      out.set(path, set);
    }
    for (const group of ['allOf', 'anyOf', 'oneOf'] as const) {
      if (Array.isArray(schema[group])) for (const part of schema[group] as unknown[]) this.walk(part, path, out, depth + 1);
    }
    if (schema.items !== undefined) this.walk(schema.items, `${path}[]`, out, depth + 1);
    for (const [name, property] of Object.entries((schema.properties as Json | undefined) ?? {}))
      this.walk(property, path === '' ? name : `${path}.${name}`, out, depth + 1);
  }
}
