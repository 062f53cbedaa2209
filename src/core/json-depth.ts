/**
 * A bound on how deeply user JSON may nest (issue 23, point 4). V8 parses any
 * depth, but JSON.stringify, structuredClone and every recursive walk after it
 * overflow the stack somewhere past a few thousand levels: a booking whose
 * `metadata` nested 5,000 deep was a 500. Bodies are refused at the parser, so
 * nothing deeper ever reaches a route, the store or a webhook.
 *
 * Depth counts objects and arrays: a body `{}` is 1 level, `{"a": {}}` 2.
 */
export const MAX_JSON_DEPTH = 64;
/** PUT /__sandbox/state and a database file: rows sit 4 levels down, and events wrap a 64-deep body */
export const MAX_STATE_DEPTH = 128;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** True when JSON text nests deeper than `limit` (one pass over the text, brackets inside strings ignored). */
export function textDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

interface Frame {
  value: unknown;
  depth: number;
  parent: Frame | null;
  key: string;
}

/**
 * The path of the first object or array nested deeper than `limit` levels
 * below `root` (which is level 1), such as `body.metadata.a.a[…58 levels…].a.a`,
 * or null (`rootName` '' for a file: `products.0.attributes...`). Iterative, so any depth is safe to walk.
 */
export function tooDeepPath(root: unknown, limit: number, rootName: string): string | null {
  const stack: Frame[] = [{ value: root, depth: 1, parent: null, key: rootName }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const { value, depth } = frame;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > limit) return pathOf(frame);
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], depth: depth + 1, parent: frame, key: `.${i}` });
    } else {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const name = /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
        stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, parent: frame, key: name });
      }
    }
  }
  return null;
}

/** Long paths keep their first and last steps, so the line stays one line. */
function pathOf(frame: Frame): string {
  const parts: string[] = [];
  for (let f: Frame | null = frame; f; f = f.parent) parts.push(f.key);
  parts.reverse();
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
