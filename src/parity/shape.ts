/**
 * A JSON body as its shape: every JSON path it has, with the JSON types seen there, whether null
 * was, and a few of its scalar values (for the fields compared by value: enums, error codes).
 *
 * A list page is compared by the shape of its items (two catalogs with different records
 * are not drift): the top-level array of the body, or of its `data` or `items`, is one path `data[]`
 * whose shape is the union of every item's, and so are the arrays inside those items. Other arrays,
 * inside one record (`passengers[0].role`), are compared index by index.
 */
export interface FieldShape {
  /** JSON type names seen here, null apart: string, number, boolean, object, array */
  types: Set<string>;
  /** null was seen here */
  nulls: boolean;
  /** the first few distinct scalar values seen here, as strings */
  values: string[];
}
export type Shape = Map<string, FieldShape>;

/** bounds on what one body costs to read: a target that answers a huge or deep body stays cheap */
const MAX_PATHS = 5000;
const MAX_DEPTH = 32;
const MAX_VALUES = 8;
/** an array longer than this is read by its first items only (a page holds at most 100) */
const MAX_ITEMS = 200;

export const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** `data` of a path, `a.b` of `a` and `b`. */
export const childPath = (parent: string, key: string): string => (parent === '' ? key : `${parent}.${key}`);

/** The path of the list page's items, when the body is one: '[]', 'data[]' or 'items[]'. */
export function listPath(body: unknown): string | null {
  if (Array.isArray(body)) return '';
  if (typeof body !== 'object' || body === null) return null;
  for (const key of ['data', 'items']) if (Array.isArray((body as Record<string, unknown>)[key])) return key;
  return null;
}

export function shapeOf(body: unknown, skipRootKeys: readonly string[] = []): Shape {
  const shape: Shape = new Map();
  const list = listPath(body);
  const visit = (value: unknown, path: string, depth: number, union: boolean): void => {
    let field = shape.get(path);
    if (!field) {
      if (shape.size >= MAX_PATHS) return;
      shape.set(path, (field = { types: new Set(), nulls: false, values: [] }));
    }
    if (value === null) {
      field.nulls = true;
      return;
    }
    const type = typeName(value);
    field.types.add(type);
    if (type !== 'object' && type !== 'array') {
      const text = String(value);
      if (field.values.length < MAX_VALUES && !field.values.includes(text)) field.values.push(text);
      return;
    }
    if (depth >= MAX_DEPTH) return;
    if (Array.isArray(value)) {
      const inUnion = union || path === list;
      const items = value.length > MAX_ITEMS ? value.slice(0, MAX_ITEMS) : value;
      items.forEach((item, i) => visit(item, inUnion ? `${path}[]` : `${path}[${i}]`, depth + 1, inUnion));
      return;
    }
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (path === '' && skipRootKeys.includes(key)) continue;
      visit(child, childPath(path, key), depth + 1, union);
    }
  };
  if (body !== undefined) visit(body, '', 0, false);
  return shape;
}

/** The path a field hangs from ('' for a root key), and whether its last step is a key (not an index). */
export function parentOf(path: string): { parent: string; byKey: boolean } | null {
  if (path === '') return null;
  const index = /\[\d*\]$/.exec(path);
  if (index) return { parent: path.slice(0, index.index), byKey: false };
  const dot = path.lastIndexOf('.');
  // a key holding a dot is read as a nested path: both sides are read the same way, so they still compare
  return { parent: dot === -1 ? '' : path.slice(0, dot), byKey: true };
}

/**
 * Where a record's field sits in a body: `data[].brand` in a list page, `data.brand` in a
 * `{data: record}` answer, `brand` in a bare record (the paths the comparison reports).
 */
export function recordFieldPath(body: unknown, field: string): string {
  const list = listPath(body);
  if (list !== null) return `${list}[].${field}`;
  const data = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).data : undefined;
  return typeof data === 'object' && data !== null && !Array.isArray(data) ? `data.${field}` : field;
}

/** The record with this id in a body: a list page's item, `data`, or the body itself. */
export function recordIn(body: unknown, id: string): Record<string, unknown> | undefined {
  const list = listPath(body);
  const candidates: unknown[] =
    list === null ? [(body as Record<string, unknown> | null)?.data, body] : ((list === '' ? body : (body as Record<string, unknown>)[list]) as unknown[]);
  return candidates.find(
    (c): c is Record<string, unknown> => typeof c === 'object' && c !== null && !Array.isArray(c) && (c as Record<string, unknown>).id === id,
  );
}
