import type { RequestEntry } from './log.ts';

/**
 * "Copy as curl" for a logged request. The sandbox logs Authorization as
 * `Bearer <keyPrefix>…` only (it never keeps a whole key), so by default the
 * command reads the key from $SANDBOX_KEY. With `key`, the whole key (known to
 * the page only for keys GET /__sandbox/workspaces answers whole, matched by
 * prefix) is written in.
 */
const LEFT_OUT = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'user-agent', 'authorization', 'x-request-id', 'x-sandbox-token']);

export function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

export function curlCommand(entry: RequestEntry, origin: string, key: string | null): string {
  const lines = [`curl -X ${entry.method} ${quote(origin + entry.path)}`];
  const headers = entry.detail?.request.headers ?? {};
  const authorized = entry.keyPrefix !== null || 'authorization' in headers;
  if (authorized) lines.push(key ? `-H ${quote(`Authorization: Bearer ${key}`)}` : `-H "Authorization: Bearer $SANDBOX_KEY"`);
  for (const [name, value] of Object.entries(headers)) {
    if (!LEFT_OUT.has(name.toLowerCase())) lines.push(`-H ${quote(`${name}: ${value}`)}`);
  }
  const body = entry.detail?.request.body;
  if (body !== null && body !== undefined) lines.push(`--data-raw ${quote(body)}`);
  return lines.join(' \\\n  ');
}
