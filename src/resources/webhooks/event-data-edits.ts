import { badRequest, validationError } from '../../core/errors.ts';
import { depthProblem, MAX_JSON_DEPTH } from '../../core/json-depth.ts';

/**
 * `sandbox trigger --override key=value --add key=value` (as `stripe trigger`):
 * edits the event data by dotted path (`customer.email`, `items.0.quantity`).
 * An override must name a field the data has, an addition one it has not, so a
 * typo is an error that lists the fields there are rather than a silent no-op.
 */
export function applyDataEdits(
  data: Record<string, unknown>,
  edits: { override?: Record<string, unknown> | undefined; add?: Record<string, unknown> | undefined },
  type: string,
): Record<string, unknown> {
  const result = structuredClone(data);
  for (const [path, value] of Object.entries(edits.override ?? {})) {
    const { parent, key } = walk(result, path, false, type, '--override');
    if (!Object.hasOwn(parent, key))
      throw badRequest('CONTROL_INVALID', `--override ${path}: the ${type} data has no field "${key}"${fieldsOf(parent)}; use --add to add one`);
    parent[key] = value;
  }
  for (const [path, value] of Object.entries(edits.add ?? {})) {
    const { parent, key } = walk(result, path, true, type, '--add');
    if (Object.hasOwn(parent, key)) throw badRequest('CONTROL_INVALID', `--add ${path}: the ${type} data already has "${key}"; use --override to change it`);
    parent[key] = value;
  }
  // a long dotted path (or a deep value placed deep) can nest the data deeper than any body may
  const tooDeep = depthProblem(result, MAX_JSON_DEPTH, 'data');
  if (tooDeep) throw validationError([tooDeep]);
  return result;
}

function walk(root: Record<string, unknown>, path: string, create: boolean, type: string, flag: string): { parent: Record<string, unknown>; key: string } {
  const parts = path.split('.');
  if (parts.some((p) => p === '')) throw badRequest('CONTROL_INVALID', `${flag} ${path}: not a dotted path such as customer.email`);
  let node: Record<string, unknown> = root;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (next === undefined && create) node = node[part] = {};
    else if (typeof next === 'object' && next !== null) node = next as Record<string, unknown>;
    else throw badRequest('CONTROL_INVALID', `${flag} ${path}: the ${type} data has no object at "${part}"${fieldsOf(node)}`);
  }
  return { parent: node, key: parts.at(-1)! };
}

function fieldsOf(node: Record<string, unknown>): string {
  const keys = Object.keys(node);
  return keys.length ? ` (it has: ${keys.join(', ')})` : '';
}
