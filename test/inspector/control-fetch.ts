import type { Sandbox } from '../../src/index.ts';

/** The control plane's `data`, through plain HTTP (what the tests assert the page changed). */
export async function control<T = any>(
  sandbox: Pick<Sandbox, 'url'>,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const res = await fetch(`${sandbox.url}/__sandbox${path}`, {
    method,
    headers: { ...(method === 'POST' || body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

/** How long a UI wait may take on the loaded 2-core machine before it fails (not a timing assertion). */
export const UI_WAIT = { timeout: 20_000 };
