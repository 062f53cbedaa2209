/**
 * fast-check arbitraries built from the sandbox's own OpenAPI document: values
 * that fit each schema, the same values with one field replaced by something
 * hostile, and hostile values alone (wrong types, huge numbers, deep nesting,
 * long strings, unicode, prototype keys).
 */
import fc from 'fast-check';

export type JsonSchema = {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  nullable?: boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
};

export interface Operation {
  method: string;
  /** OpenAPI path, with {param} placeholders */
  path: string;
  params: { name: string; in: 'path' | 'query'; schema: JsonSchema }[];
  body: JsonSchema | null;
}

/** Operations of an OpenAPI document, in document order. */
export function operationsOf(doc: {
  paths: Record<string, Record<string, { parameters?: Operation['params']; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
}): Operation[] {
  const out: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      out.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: op.requestBody?.content['application/json']?.schema ?? null,
      });
    }
  }
  return out;
}

/** encodeURIComponent throws on lone surrogates; those are sent as U+FFFD, as a browser would. */
export const encode = (text: string): string =>
  encodeURIComponent(text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'));

const deep = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;

/** Values no schema asked for. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, -0, 1e308, -1e308, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, 1.5, '', ' ', '0', 'null', '[]', '{}'),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('x'.repeat(70_000), '😀'.repeat(3000), '\u0000\u202e\ud800', '__proto__', 'constructor', '../../etc/passwd', '<script>', "' OR 1=1 --"),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
);

/** A hostile JSON body as raw text: deep nesting, prototype keys, not JSON at all. */
export const hostileBodyText: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 1, max: 5000 }).map(deep),
  fc.constantFrom(
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"a":1,"a":2}',
    '{',
    '',
    'null',
    '[]',
    '"text"',
    '\u0000',
    `{"x":${'1'.repeat(400)}}`,
  ),
  fc.string({ maxLength: 60 }),
);

const clampInt = (n: number | undefined, fallback: number) =>
  n === undefined || !Number.isFinite(n) ? fallback : Math.max(Math.min(n, Number.MAX_SAFE_INTEGER), Number.MIN_SAFE_INTEGER);

/** A value that fits `schema` (as far as a generator can tell), with ids drawn from `ids`. */
export function fromSchema(schema: JsonSchema | undefined, ids: fc.Arbitrary<string>, depth = 0, name = ''): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 1 });
  const base = fromSchemaBase(schema, ids, depth, name);
  return schema.nullable ? fc.oneof(fc.constant(null), base) : base;
}

function fromSchemaBase(schema: JsonSchema, ids: fc.Arbitrary<string>, depth: number, name: string): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(s, ids, depth + 1, name)));
  if (schema.allOf?.length) return fromSchema(Object.assign({}, ...schema.allOf) as JsonSchema, ids, depth + 1, name);
  switch (schema.type) {
    case 'string':
      return stringFor(schema, ids, name);
    case 'integer': {
      const min = clampInt(schema.minimum, -1_000_000);
      const max = clampInt(schema.maximum, 1_000_000);
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fromSchema(schema.items, ids, depth + 1, name), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, Math.max(schema.minItems ?? 0, 4)),
      });
    default: {
      if (!schema.properties) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
      const shape: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [key, prop] of Object.entries(schema.properties)) shape[key] = fromSchema(prop, ids, depth + 1, key);
      return fc.record(shape, { requiredKeys: (schema.required ?? []).filter((k) => k in shape) });
    }
  }
}

function stringFor(schema: JsonSchema, ids: fc.Arbitrary<string>, name: string): fc.Arbitrary<string> {
  if (/id$/i.test(name) || /Ids?$/.test(name)) return fc.oneof(ids, fc.uuid());
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time')
    return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === 'date')
    return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uri' || /url$/i.test(name)) return fc.oneof(fc.webUrl(), fc.constantFrom('http://127.0.0.1:9/hook', 'http://localhost:1/x'));
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? 200));
    } catch {
      // a pattern fast-check cannot read: fall through
    }
  }
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 30, Math.max(schema.minLength ?? 0, 30)) });
}

/** A body for `schema`: valid, valid with one field made hostile, or hostile outright. Raw JSON text. */
export function bodyText(schema: JsonSchema, ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const valid = fromSchema(schema, ids);
  const mutated = fc.tuple(valid, fc.nat(), hostileValue).map(([value, index, bad]) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad;
    const keys = Object.keys(schema.properties ?? {});
    if (keys.length === 0) return bad;
    return { ...value, [keys[index % keys.length]!]: bad };
  });
  const withProtoKeys = valid.map((value) => {
    const text = JSON.stringify(value) ?? 'null';
    return text.startsWith('{') && text.length > 2 ? `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},${text.slice(1)}` : text;
  });
  return fc.oneof(
    { arbitrary: valid.map((v) => JSON.stringify(v) ?? 'null'), weight: 4 },
    { arbitrary: mutated.map((v) => JSON.stringify(v) ?? 'null'), weight: 4 },
    { arbitrary: withProtoKeys, weight: 1 },
    { arbitrary: hostileValue.map((v) => JSON.stringify(v) ?? 'null'), weight: 1 },
    { arbitrary: hostileBodyText, weight: 1 },
  );
}

/** A path segment: a real id (of either workspace), a bare uuid, or junk. Already URL-encoded. */
export function pathSegment(ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: ids, weight: 5 },
    { arbitrary: fc.uuid(), weight: 1 },
    {
      arbitrary: fc
        .string({ maxLength: 30 })
        .filter((s) => s.length > 0)
        .map(encode),
      weight: 2,
    },
    { arbitrary: fc.constantFrom('%00', '%ff%fe', 'a'.repeat(5000), '__proto__', 'constructor', '..', '%2e%2e', 'prod_', '😀'), weight: 1 },
  );
}

/** A query string for the operation's query parameters, plus extra and repeated keys. */
export function queryString(op: Operation, ids: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const params = op.params.filter((p) => p.in === 'query');
  const value = (p: (typeof params)[number]) =>
    fc.oneof(
      { arbitrary: fromSchema(p.schema, ids, 0, p.name).map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))), weight: 3 },
      { arbitrary: hostileValue.map((v) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))), weight: 1 },
    );
  const pairs = fc.tuple(
    ...params.map((p) =>
      fc.option(
        value(p).map((v) => [p.name, v] as [string, string]),
        { nil: undefined },
      ),
    ),
    fc.option(fc.tuple(fc.constantFrom('__proto__', 'constructor', 'limit', 'extra', 'workspaceId'), fc.string({ maxLength: 10 })), { nil: undefined }),
  );
  return fc.tuple(pairs, fc.boolean()).map(([list, repeat]) => {
    const present = (list as ([string, string] | undefined)[]).filter((x): x is [string, string] => x !== undefined);
    if (repeat && present[0]) present.push(present[0]);
    return present.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
  });
}
