/**
 * Secrets out of everything the sandbox keeps or serves about traffic: the request log and its
 * stream, the run report, the parity proxy's examples, report and recorded fixtures (docs/parity.md,
 * "What is never kept"). A secret is found two ways:
 *
 * - by name: a JSON field, header or query parameter called `key`, `secret`, `token`, `password`,
 *   `apiKey`, `client_secret`, `authorization`, ... (any spelling: camelCase, snake_case, dashes);
 * - by shape, anywhere in a string: the API description's key formats (`org_<8>_<32>`, the
 *   workspace keys `tcs_test_…`/`tcs_live_…`), webhook signing secrets (`whsec_…`), bearer
 *   tokens, JWTs and the common `sk_live_…` style of secret keys.
 *
 * A redacted value reads `[redacted <kind>, <n> chars]`: still a string, so a comparison of shape
 * sees the same type, and a person sees that something was there and how long it was. Only copies
 * are redacted: what the client is answered is never touched.
 */

const MARK = '[redacted ';

export const redactedText = (kind: string, length: number): string => `${MARK}${kind}, ${length} chars]`;

export const isRedacted = (value: string): boolean => value.startsWith(MARK);

/** Secret shapes, most specific first; each has one group, the secret itself. */
const SHAPES: readonly { kind: string; pattern: RegExp }[] = [
  // API description, "Organization API key": org_<prefix 8>_<secret 32>
  { kind: 'organization key', pattern: /(?<![A-Za-z0-9])(org_[A-Za-z0-9]{8}_[A-Za-z0-9]{32})(?![A-Za-z0-9])/g },
  // workspace keys (fixtures/*.json, `keys create`), also glued to an id (`book_tcs_test_…`); a listing prefix is shorter and stays
  { kind: 'workspace key', pattern: /(tcs_(?:test|live)_[A-Za-z0-9_]{24,})/g },
  // Standard Webhooks signing secrets
  { kind: 'webhook secret', pattern: /(whsec_[A-Za-z0-9+/=_-]{16,})/g },
  { kind: 'JWT', pattern: /\b(eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)/g },
  { kind: 'secret key', pattern: /(?<![A-Za-z0-9])((?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,})/g },
  // whatever follows the word Bearer (a key of any format the shapes above do not know)
  { kind: 'bearer token', pattern: /\bBearer\s+([A-Za-z0-9._~+/=-]{8,})/gi },
];

/** a cheap test before the patterns: none of them can match a string without one of these */
const HINT = /org_|tcs_|whsec_|eyJ|_live_|_test_|bearer/i;

/**
 * Whether any secret shape may be in `text` (a cheap test, true when in doubt): a caller with many
 * strings (a bundle's column of values) tests them joined once instead of each.
 */
export const mayHoldSecretShape = (text: string): boolean => HINT.test(text);

/** The string with every secret shape in it redacted; the same string when there is none. */
export function redactShapes(text: string): string {
  if (!HINT.test(text)) return text;
  let out = text;
  for (const { kind, pattern } of SHAPES) {
    out = out.replace(pattern, (whole: string, secret: string) => whole.replace(secret, redactedText(kind, secret.length)));
  }
  return out;
}

/** the kind of the first secret shape a whole value has, if any */
function shapeKind(value: string): string | undefined {
  for (const { kind, pattern } of SHAPES) {
    pattern.lastIndex = 0;
    const match = pattern.exec(value);
    pattern.lastIndex = 0;
    if (match && match[1] === value) return kind;
  }
  return undefined;
}

const normalized = (name: string): string => name.toLowerCase().replace(/[-_.\s]/g, '');

/** names that hold a secret whole, once normalized (lower case, no `_`, `-` or `.`) */
const SECRET_NAMES = new Set([
  'key',
  'secret',
  'token',
  'password',
  'passwd',
  'passphrase',
  'pwd',
  'apikey',
  'clientsecret',
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'credential',
  'credentials',
  'privatekey',
  'otp',
  'codeverifier',
]);
/** suffixes of names that hold a secret: `x-api-key`, `webhookSecret`, `access_token`, `dbPassword` */
const SECRET_SUFFIXES = ['apikey', 'secret', 'password', 'token', 'authorization'];
/** ...except a paging token, which is a position, not a credential */
const NOT_SECRET = /page|cursor|continuation|next|csrf/;

/**
 * Whether a field, header or query parameter of this name holds a secret. Asked of every field of
 * every row a bundle holds, of a few dozen names: each is judged once (names seen are remembered,
 * up to a bound, so a client inventing names cannot grow the memory).
 */
export function isSecretName(name: string): boolean {
  let judged = judgedNames.get(name);
  if (judged === undefined) {
    judged = judgeName(name);
    if (judgedNames.size < JUDGED_NAMES_KEPT) judgedNames.set(name, judged);
  }
  return judged;
}

const judgedNames = new Map<string, boolean>();
const JUDGED_NAMES_KEPT = 4096;

function judgeName(name: string): boolean {
  const n = normalized(name);
  if (SECRET_NAMES.has(n)) return true;
  return SECRET_SUFFIXES.some((suffix) => n.endsWith(suffix)) && !NOT_SECRET.test(n);
}

/** A value under a secret name: redacted whole (a number too); an empty string, null or boolean says nothing and stays. */
function redactNamed(name: string, value: string | number): string | number {
  const text = String(value);
  if (text === '' || isRedacted(text)) return value;
  return redactedText(shapeKind(text) ?? normalized(name), text.length);
}

/** JSON nested deeper than this is cut: no body the sandbox takes gets near it (src/core/json-depth.ts) */
const MAX_DEPTH = 64;

/**
 * A redacted copy of a JSON value: by field name at any depth, by shape in every string.
 * `name` is the field the value hangs from, when the caller knows it. What holds no secret comes
 * back as the same value (the same object), so a caller can tell that nothing was redacted.
 */
export function redactJson(value: unknown, name?: string, depth = 0): unknown {
  if (typeof value === 'string') return name !== undefined && isSecretName(name) ? redactNamed(name, value) : redactShapes(value);
  if (typeof value === 'number') return name !== undefined && isSecretName(name) ? redactNamed(name, value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[redacted: nested too deep to read]';
  if (Array.isArray(value)) {
    const items = value.map((item) => redactJson(item, name, depth + 1));
    return items.some((item, i) => item !== value[i]) ? items : value;
  }
  let out: Record<string, unknown> | null = null;
  const fields = value as Record<string, unknown>;
  // for...in, not Object.entries: a bundle walks every object of every row, and an array of pairs for each was most of the cost
  for (const field in fields) {
    if (!Object.hasOwn(fields, field)) continue;
    const inner = fields[field];
    const redacted = redactJson(inner, field, depth + 1);
    if (redacted !== inner) (out ??= { ...value })[field] = redacted;
  }
  return out ?? value;
}

/** A header's value: a credential header redacted whole (Authorization keeps its scheme), any other by shape. */
export function redactHeader(name: string, value: string): string {
  const n = normalized(name);
  if (n === 'authorization' || n === 'proxyauthorization') {
    const space = value.trim().indexOf(' ');
    if (space > 0) {
      const token = value
        .trim()
        .slice(space + 1)
        .trim();
      return `${value.trim().slice(0, space)} ${isRedacted(token) ? token : redactedText(shapeKind(token) ?? 'credential', token.length)}`;
    }
  }
  return isSecretName(name) ? String(redactNamed(name, value)) : redactShapes(value);
}

export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = redactHeader(name, value);
  return out;
}

/**
 * A query string (without `?`) with credential parameters redacted; every other pair kept as
 * written. The API description has keys "in the header only, never in URLs"; a client that puts
 * one there anyway must not find it in a log.
 */
export function redactQuery(query: string): string {
  // the common query (`limit=10&starting_after=…`) names no credential and holds no key shape: one test each
  if (query === '' || (!CREDENTIAL_PARAM.test(query) && !HINT.test(query))) return query;
  return mapQueryPairs(query, (name, value, rawName) => {
    if (value === null) return redactShapes(rawName);
    if (isSecretName(name)) return value === '' || isRedacted(value) ? null : `${rawName}=${encodeURIComponent(String(redactNamed(name, value)))}`;
    const redacted = redactShapes(value);
    return redacted === value ? null : `${rawName}=${encodeURIComponent(redacted)}`;
  });
}

/**
 * Each `name=value` pair of a query string through `change`, given the decoded name and value (null
 * for a pair with no `=`) and the name as written; `null` keeps the pair exactly as written.
 */
export function mapQueryPairs(query: string, change: (name: string, value: string | null, rawName: string) => string | null): string {
  if (query === '') return query;
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const rawName = equals < 0 ? pair : pair.slice(0, equals);
      return change(safeDecode(rawName), equals < 0 ? null : safeDecode(pair.slice(equals + 1)), rawName) ?? pair;
    })
    .join('&');
}

/** a parameter name that may be a credential's (isSecretName decides), before its `=`; percent-encoded names go the long way */
const CREDENTIAL_PARAM = /(?:key|secret|token|pass|pwd|auth|cookie|credential|otp|verifier|%)[^=&]*=/i;

/** A request target (`/v1/x?y=z`): its path by shape, its query as redactQuery does. */
export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  if (question < 0) return redactShapes(url);
  return `${redactShapes(url.slice(0, question))}?${redactQuery(url.slice(question + 1))}`;
}

/** a JSON field whose name says secret, with a string value, in text that may be cut short */
const NAMED_IN_TEXT = /"([A-Za-z0-9_.-]{1,64})"(\s*:\s*)"((?:[^"\\]|\\.)*)("?)/g;

/**
 * A body as text: parsed and redacted as JSON when it is JSON (and then written back compact); else,
 * as in a body cut short, each `"secretName": "value"` pair and every secret shape in it.
 */
export function redactText(text: string): string {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      const redacted = redactJson(parsed);
      return redacted === parsed ? text : JSON.stringify(redacted);
    } catch {
      // not whole JSON: the pairs below
    }
  }
  const pairs = text.replace(NAMED_IN_TEXT, (whole: string, name: string, colon: string, value: string, close: string) =>
    isSecretName(name) && value !== '' && !isRedacted(value) ? `"${name}"${colon}"${redactNamed(name, value)}${close}` : whole,
  );
  return redactShapes(pairs);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
