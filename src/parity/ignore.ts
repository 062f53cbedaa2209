import { readFileSync } from 'node:fs';
import { DIFFERENCE_KINDS, type DifferenceKind, type IgnoreRule } from './types.ts';

/**
 * Ignore rules of the parity report (docs/parity.md, "Ignore rules"):
 * a glob over the operation, `GET /v1/products*` or `/v1/bookings/{id}`, with an optional
 * kind and an optional field glob. The flag form is `[METHOD ]<path glob>[:<kind>[:<field glob>]]`
 * or `<kind>:[METHOD ]<path glob>`;
 * the file form is JSON, a list of rules (objects, or strings in the flag form) or `{ignore: [...]}`.
 * Errors are one line that names the rule and what is wrong with it.
 */
const KINDS = new Set<string>(DIFFERENCE_KINDS);
/** a rules file is read whole: it is written by a person, so a bound keeps a mistaken path (a log, a database) from being read */
const MAX_FILE_BYTES = 1024 * 1024;
/** every rule is tried against every difference: a bound on what a file can make that cost */
export const MAX_IGNORE_RULES = 1000;

const kindList = (): string => DIFFERENCE_KINDS.join(', ');

/** `/v1/products/:id` is how the description writes a path; the report writes `{id}`: both are accepted. */
const templated = (path: string): string => path.replace(/:([A-Za-z_]\w*)/g, '{$1}');

function checkKind(kind: string, rule: string): DifferenceKind {
  if (!KINDS.has(kind)) throw new Error(`ignore rule "${rule}": unknown kind "${kind}"; the kinds are ${kindList()}`);
  return kind as DifferenceKind;
}

function checkPath(path: string, rule: string): string {
  const trimmed = path.trim();
  if (trimmed === '') throw new Error(`ignore rule "${rule}": the path glob is empty; write one like 'GET /v1/products*' or '/v1/bookings/*'`);
  if (!/^([A-Za-z]+ +)?[/*]/.test(trimmed))
    throw new Error(`ignore rule "${rule}": the path glob must start with / or * (after an optional method), as in 'GET /v1/products*'`);
  return templated(trimmed.replace(/^([A-Za-z]+) +/, (_m, method: string) => `${method.toUpperCase()} `));
}

/**
 * Parses one rule in the flag form (`--ignore 'GET /v1/products*:extra-field'`). A colon is
 * read as the start of the kind only when a kind follows it, so `/v1/products/:id` stays a path.
 */
export function parseIgnoreFlag(text: string): IgnoreRule {
  const parts = text.split(':');
  // the kind first is read too (`header:GET /v1/products*`, as `sandbox proxy --ignore` documents it)
  if (parts.length > 1 && KINDS.has(parts[0]!.trim())) return { path: checkPath(parts.slice(1).join(':'), text), kind: parts[0]!.trim() as DifferenceKind };
  // the first part after which the rest reads `<kind>[:<field>]`
  for (let i = 1; i < parts.length; i++) {
    if (!KINDS.has(parts[i]!.trim())) continue;
    const rule: IgnoreRule = { path: checkPath(parts.slice(0, i).join(':'), text), kind: parts[i]!.trim() as DifferenceKind };
    const field = parts
      .slice(i + 1)
      .join(':')
      .trim();
    if (i + 1 < parts.length && field === '')
      throw new Error(`ignore rule "${text}": the field glob after the kind is empty; leave out the last colon to ignore every field`);
    if (field !== '') rule.field = field;
    return rule;
  }
  // `/v1/products:extra-fields` is a mistyped kind; `/v1/products/:id` a path parameter
  const last = parts.length > 1 ? parts[parts.length - 1]!.trim() : '';
  if (last !== '' && !parts[parts.length - 2]!.endsWith('/') && /^[a-z]+(-[a-z]+)*$/.test(last)) checkKind(last, text);
  return { path: checkPath(text, text) };
}

/** One rule of a file: an object `{path, kind?, field?}` or a string in the flag form. */
function ruleOf(value: unknown, where: string): IgnoreRule {
  if (typeof value === 'string') return parseIgnoreFlag(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${where}: a rule is an object {path, kind?, field?} or a string like 'GET /v1/products*:extra-field'`);
  const { path, kind, field, ...rest } = value as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new Error(`${where}: unknown key "${unknown[0]}"; a rule has path, kind and field`);
  if (typeof path !== 'string') throw new Error(`${where}: "path" must be a string glob, like '/v1/products*'`);
  const rule: IgnoreRule = { path: checkPath(path, path) };
  if (kind !== undefined) {
    if (typeof kind !== 'string') throw new Error(`${where}: "kind" must be one of ${kindList()}`);
    rule.kind = checkKind(kind, path);
  }
  if (field !== undefined) {
    if (typeof field !== 'string' || field === '') throw new Error(`${where}: "field" must be a non-empty glob, like 'data[].brand' or 'data[].*'`);
    rule.field = field;
  }
  return rule;
}

/** The rules of a parsed JSON document: a list, or `{ignore: [...]}`. `name` says where it came from. */
export function ignoreRulesOf(document: unknown, name: string): IgnoreRule[] {
  const list = Array.isArray(document) ? document : (document as { ignore?: unknown } | null)?.ignore;
  if (!Array.isArray(list)) throw new Error(`${name}: expected a JSON list of ignore rules, or {"ignore": [...]}`);
  if (list.length > MAX_IGNORE_RULES) throw new Error(`${name}: ${list.length} ignore rules; at most ${MAX_IGNORE_RULES}`);
  return list.map((value, i) => ruleOf(value, `${name}, rule ${i + 1}`));
}

/** Reads an ignore file (`--ignore-file`): JSON, as ignoreRulesOf reads it. */
export function readIgnoreFile(file: string): IgnoreRule[] {
  let text: string;
  try {
    const bytes = readFileSync(file);
    if (bytes.length > MAX_FILE_BYTES) throw new Error(`${file}: ${bytes.length} bytes; an ignore file is at most ${MAX_FILE_BYTES} bytes`);
    text = bytes.toString('utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new Error(`${file}: no such ignore file`);
    if (code === 'EISDIR') throw new Error(`${file} is a directory; --ignore-file takes a JSON file`);
    throw err;
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON (${(err as Error).message})`);
  }
  return ignoreRulesOf(document, file);
}

/** A glob as a regular expression: `*` any run of characters, everything else literal. */
export function globRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/** The compiled rules: `ignores(kind, method, path, field)` says whether a difference is dropped. */
export function ignoreMatcher(rules: readonly IgnoreRule[]): (kind: DifferenceKind, method: string, path: string, field: string) => boolean {
  const compiled = rules.slice(0, MAX_IGNORE_RULES).map((rule) => ({
    withMethod: /^[A-Z]+ /.test(rule.path),
    path: globRegExp(templated(rule.path)),
    kind: rule.kind,
    field: rule.field === undefined ? null : globRegExp(rule.field),
  }));
  return (kind, method, path, field) =>
    compiled.some(
      (rule) =>
        (rule.kind === undefined || rule.kind === kind) &&
        rule.path.test(rule.withMethod ? `${method} ${path}` : path) &&
        (rule.field === null || rule.field.test(field)),
    );
}
