/**
 * A bound on how deeply user JSON may nest. V8 parses any
 * depth, but JSON.stringify, structuredClone and every recursive walk after it
 * overflow the stack somewhere past a few thousand levels: a booking whose
 * `metadata` nested 5,000 deep would be a 500. Bodies are refused at the parser, so
 * nothing deeper ever reaches a route, the store or a webhook.
 *
 * Depth counts objects and arrays: a body `{}` is 1 level, `{"a": {}}` 2.
 */
export const MAX_JSON_DEPTH = 64;
/** PUT /__sandbox/state and a database file: rows sit 4 levels down, and events wrap a 64-deep body */
export const MAX_STATE_DEPTH = 128;

/**
 * The path of the first object or array nested deeper than `limit` levels
 * below `root` (which is level 1), such as `body.metadata.a.a[…58 levels…].a.a`,
 * or null (`rootName` '' for a file: `products.0.attributes...`). It recurses,
 * but never past `limit` + 1 frames, so any depth is safe to walk; and without
 * allocating on the way down, so a 100k-row import pays little for it.
 */
export function tooDeepPath(root: unknown, limit: number, rootName: string): string | null {
  if (typeof root !== 'object' || root === null) return null;
  const steps = firstTooDeep(root, 1, limit);
  return steps === null ? null : format([rootName, ...steps.reverse()]);
}

/** The steps (innermost first) to the first container deeper than `limit`, `value` being at `depth`. */
function firstTooDeep(value: object, depth: number, limit: number): string[] | null {
  if (depth > limit) return [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const child: unknown = value[i];
      if (typeof child !== 'object' || child === null) continue;
      const steps = firstTooDeep(child, depth + 1, limit);
      if (steps) {
        steps.push(`.${i}`);
        return steps;
      }
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const child: unknown = (value as Record<string, unknown>)[key];
    if (typeof child !== 'object' || child === null) continue;
    const steps = firstTooDeep(child, depth + 1, limit);
    if (steps) {
      steps.push(/^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`);
      return steps;
    }
  }
  return null;
}

/** Long paths keep their first and last steps, so the line stays one line. */
function format(parts: string[]): string {
  const hidden = parts.length - 7;
  const path = parts.length <= 10 ? parts.join('') : `${parts.slice(0, 5).join('')}[…${hidden} levels…]${parts.slice(-2).join('')}`;
  return path.startsWith('.') ? path.slice(1) : path; // a root named '' (a file's top level)
}

/** The one-line message of a refusal, e.g. for a VALIDATION_400 detail. */
export const tooDeepMessage = (path: string, limit: number) =>
  `${path}: nested deeper than ${limit} levels of objects and arrays; the sandbox accepts JSON at most ${limit} levels deep (flatten it)`;

/** `tooDeepMessage` for a value nested too deep, or null. */
export function depthProblem(root: unknown, limit: number, rootName: string): string | null {
  const path = tooDeepPath(root, limit, rootName);
  return path === null ? null : tooDeepMessage(path, limit);
}
