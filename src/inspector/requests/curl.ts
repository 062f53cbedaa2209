/** What the command is made of: a logged request (RequestEntry) has it; named here so the suite's node tests can import this file without the page's DOM code. */
export interface CurlEntry {
  method: string;
  path: string;
  keyPrefix: string | null;
  detail?: { request: { headers: Record<string, string>; body: string | null } } | undefined;
}

/**
 * "Copy as curl" for a logged request. The sandbox logs Authorization as its
 * scheme and the key's listing prefix only (`Token tcs_test_borealis…`: it never
 * keeps a whole key), so by default the command reads the key from $SANDBOX_KEY,
 * sent with the scheme the request used (a `Token` request copied as
 * `Bearer` would not reproduce its 401). With `key`, the whole key (known to
 * the page only for keys GET /__sandbox/workspaces answers whole, matched by
 * prefix) is written in.
 */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent', 'authorization', 'x-request-id', 'x-sandbox-token']);

export function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(entry: CurlEntry, origin: string, key: string | null): string {
  const lines = [`curl -X ${entry.method} ${quote(origin + entry.path)}`];
  const headers = entry.detail?.request.headers ?? {};
  const authorized = entry.keyPrefix !== null || 'authorization' in headers;
  const scheme = 'authorization' in headers ? schemeOf(headers.authorization!) : 'Bearer ';
  if (authorized) lines.push(key ? `-H ${quote(`Authorization: ${scheme}${key}`)}` : `-H "Authorization: ${scheme}$SANDBOX_KEY"`);
  for (const [name, value] of Object.entries(headers)) {
    if (!LEFT_OUT.has(name.toLowerCase())) lines.push(`-H ${quote(`${name}: ${value}`)}`);
  }
  const body = entry.detail?.request.body;
  if (body !== null && body !== undefined) lines.push(`--data-raw ${quote(body)}`);
  return lines.join(' \\\n  ');
}

/** The scheme of a logged Authorization value (`Token tcs_…`, `Bearer abc… (not a known key)`) with its space; '' when the key was sent bare. */
export function schemeOf(logged: string): string {
  const words = logged
    .replace(/ \(not a known key\)$/, '')
    .trim()
    .split(/\s+/);
  return words.length > 1 ? `${words.slice(0, -1).join(' ')} ` : '';
}
