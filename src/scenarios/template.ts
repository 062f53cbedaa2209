/** `{{name}}` substitution and `body.data[0].id` paths, for scenario steps. */
export type Vars = Record<string, unknown>;

const WHOLE = /^\{\{\s*([\w.:-]+)\s*\}\}$/;
const PART = /\{\{\s*([\w.:-]+)\s*\}\}/g;

/**
 * `{{name}}` is a variable; `{{wrong:name}}` is the variable with every digit
 * shifted by one, so a scenario can send a code that is certainly wrong.
 */
export function lookupVar(vars: Vars, name: string): unknown {
  if (name.startsWith('wrong:')) return String(lookupVar(vars, name.slice(6))).replace(/\d/g, (d) => String((Number(d) + 1) % 10));
  if (!(name in vars)) throw new Error(`unknown variable {{${name}}}`);
  return vars[name];
}

/** Substitutes variables in every string of a JSON value; a string that is only `{{x}}` takes x's type. */
export function render<T>(value: T, vars: Vars): T {
  if (typeof value === 'string') {
    const whole = WHOLE.exec(value);
    if (whole) return lookupVar(vars, whole[1]!) as T;
    return value.replace(PART, (_, name: string) => String(lookupVar(vars, name))) as T;
  }
  if (Array.isArray(value)) return value.map((v) => render(v, vars)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(v, vars)])) as T;
  }
  return value;
}

/** The variables every run has (src/scenarios/runner.ts, builtinVars), besides captures and receivers. */
export const BUILTIN_VARIABLES = ['run', 'keys.live', 'keys.sandbox', 'keys.liveRead', 'keys.sandboxRead', 'workspaces.live', 'workspaces.sandbox'] as const;

/**
 * The variables a step's rendered parts use (a request with its expectation,
 * or a control action: what the runner renders), each with where it is in the
 * step (and where in its string); `{{wrong:x}}` uses x.
 */
export function usedVariables(step: Record<string, unknown>): { name: string; path: (string | number)[]; index: number }[] {
  const found: { name: string; path: (string | number)[]; index: number }[] = [];
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(PART)) found.push({ name: match[1]!.replace(/^wrong:/, ''), path, index: match.index });
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
  };
  for (const part of ['request', 'expect', 'control']) walk(step[part], [part]);
  return found;
}

/** For printing a step: its variables replaced by their values where they have one, left as `{{x}}` where not. */
export function renderForDisplay(text: string, vars: Vars): string {
  return text.replace(PART, (whole, name: string) => {
    try {
      const value = lookupVar(vars, name);
      return typeof value === 'string' ? value : JSON.stringify(value);
    } catch {
      return whole;
    }
  });
}

/** Reads `a.b[0].c` (header names may contain dashes) from a value. */
export function readPath(root: unknown, path: string): unknown {
  const parts = path.match(/[^.[\]]+/g) ?? [];
  let current: unknown = root;
  for (const part of parts) {
    if (current === null || current === undefined) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * Partial deep match. Returns null when `actual` matches `expected`, else a
 * one-line description of the first difference. "*" matches any present value.
 */
export function mismatch(expected: unknown, actual: unknown, at = 'body'): string | null {
  if (expected === '*') return actual === undefined ? `${at}: expected a value, got nothing` : null;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${at}: expected an array, got ${brief(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const diff = mismatch(expected[i], actual[i], `${at}[${i}]`);
      if (diff) return diff;
    }
    return null;
  }
  if (expected && typeof expected === 'object') {
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return `${at}: expected an object, got ${brief(actual)}`;
    for (const [key, value] of Object.entries(expected)) {
      const diff = mismatch(value, (actual as Record<string, unknown>)[key], `${at}.${key}`);
      if (diff) return diff;
    }
    return null;
  }
  return Object.is(expected, actual) ? null : `${at}: expected ${brief(expected)}, got ${brief(actual)}`;
}

function brief(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
