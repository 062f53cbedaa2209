/**
 * Finds the body keys a route's zod schema does not know (docs/api-notes.md "Warnings"):
 * they are ignored, with a warning naming them, instead of a 400. Open objects
 * (records, loose objects such as `metadata`, `attributes`, `settings`) have
 * no unknown keys. Walks only as deep as the schema describes the value.
 */
interface Def {
  type: string;
  shape?: Record<string, Schema>;
  catchall?: Schema;
  innerType?: Schema;
  in?: Schema;
  element?: Schema;
  options?: Schema[];
  discriminator?: string;
  values?: unknown[];
}
interface Schema {
  _zod: { def: Def };
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);
const MAX_REPORTED = 20;

function unwrap(schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let i = 0; s && i < 20; i++) {
    const def = s._zod?.def;
    if (!def) return undefined;
    if (WRAPPERS.has(def.type)) s = def.innerType;
    else if (def.type === 'pipe') s = def.in;
    else return s;
  }
  return s;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object option of a union that fits `value`: by discriminator when there is one, else every object option. */
function objectOptions(def: Def, value: Record<string, unknown>): Schema[] | null {
  const options = (def.options ?? []).map(unwrap);
  if (options.some((o) => o?._zod.def.type !== 'object')) return null;
  const objects = options as Schema[];
  if (def.discriminator) {
    const key = def.discriminator;
    const match = objects.find((o) => {
      const d = unwrap(o._zod.def.shape?.[key])?._zod.def;
      return d?.values?.includes(value[key]);
    });
    return match ? [match] : null;
  }
  return objects;
}

function walk(schema: Schema | undefined, value: unknown, path: string, out: string[]): void {
  if (out.length >= MAX_REPORTED) return;
  const s = unwrap(schema);
  const def = s?._zod.def;
  if (!def) return;
  if (def.type === 'array' && Array.isArray(value)) {
    value.forEach((item, i) => walk(def.element, item, `${path}.${i}`, out));
    return;
  }
  if (!isPlainObject(value)) return;
  const options = def.type === 'object' ? [s!] : def.type === 'union' ? objectOptions(def, value) : null;
  if (!options) return;
  // open objects (z.looseObject, a catchall) keep unknown keys as data
  if (options.some((o) => o._zod.def.catchall && o._zod.def.catchall._zod.def.type !== 'never')) return;
  for (const key of Object.keys(value)) {
    const known =
      options.length === 1
        ? Object.hasOwn(options[0]!._zod.def.shape ?? {}, key)
          ? options
          : NONE
        : options.filter((o) => Object.hasOwn(o._zod.def.shape ?? {}, key));
    // a primitive has no keys to report: no walk, no path (this runs on every body, and on every imported row)
    const child = value[key];
    if (known.length === 0) out.push(nameOf(path, key));
    else if (known.length === 1 && typeof child === 'object' && child !== null) walk(known[0]!._zod.def.shape![key], child, nameOf(path, key), out);
    if (out.length >= MAX_REPORTED) return;
  }
}

const NONE: Schema[] = [];
const nameOf = (path: string, key: string) => (/^[A-Za-z_$][\w$-]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`);

/** Paths such as `body.parentId` or `body.passengers.0.seat`, at most 20 (`root` names the top: `body`, or a row). */
export function unknownFields(schema: unknown, body: unknown, root = 'body'): string[] {
  const out: string[] = [];
  if (schema && typeof schema === 'object' && '_zod' in schema) walk(schema as Schema, body, root, out);
  return out;
}
