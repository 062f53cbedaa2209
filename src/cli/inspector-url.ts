/**
 * The browser inspector's address (docs/inspector.md): `<url>/__sandbox/ui/`,
 * with the control token in the #fragment when there is one. A fragment is
 * never sent to a server nor written in a log; the page moves it to
 * sessionStorage and sends it as X-Sandbox-Token. Never a query string.
 */
export const INSPECTOR_PATH = '/__sandbox/ui/';

export function inspectorUrl(sandboxUrl: string, token?: string | null): string {
  const base = `${sandboxUrl.replace(/\/+$/, '')}${INSPECTOR_PATH}`;
  return token ? `${base}#token=${encodeURIComponent(token)}` : base;
}
