import createClient from 'openapi-fetch';
import type { paths } from './api.generated.ts';

/**
 * The inspector's only way to the sandbox: openapi-fetch typed by the types
 * generated from the served OpenAPI document (api.generated.ts), so a call to
 * a route outside the control-plane contract, or with the wrong shape, is a
 * type error (the inspector is a pure consumer of the control-plane contract).
 *
 * On a non-loopback host the control plane wants its token. The banner's URL
 * carries it in the #fragment (never sent to a server, never in a log); the
 * page moves it to sessionStorage, clears the fragment, and sends it as
 * X-Sandbox-Token on every call.
 */
const TOKEN_KEY = 'sandbox-control-token';

function takeToken(): string | null {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const fromUrl = fragment.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    fragment.delete('token');
    const rest = fragment.toString();
    history.replaceState(null, '', `${window.location.pathname}${window.location.search}${rest ? `#${rest}` : ''}`);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

export const token = takeToken();
export const authHeaders: Record<string, string> = token ? { 'x-sandbox-token': token } : {};

export const api = createClient<paths>({ baseUrl: window.location.origin, headers: authHeaders });

type Paths = paths;
/** The `data` of a control route's 200 answer. */
export type DataOf<P extends keyof Paths, M extends 'get' | 'post'> = Paths[P][M] extends {
  responses: { 200: { content: { 'application/json': { data: infer D } } } };
}
  ? D
  : Paths[P][M] extends { responses: { 201: { content: { 'application/json': { data: infer D } } } } }
    ? D
    : never;

/** What a failed call answered: the control plane's error body, or a network failure. */
export function describeError(error: unknown): string {
  if (error && typeof error === 'object') {
    const body = error as { error?: unknown; message?: unknown; code?: unknown };
    const text = typeof body.message === 'string' ? body.message : typeof body.error === 'string' ? body.error : JSON.stringify(error);
    return typeof body.code === 'string' ? `${body.code}: ${text}` : text;
  }
  return String(error);
}

/** Unwraps `{data}` or throws the error body as a readable Error (for views that await one call). */
export async function unwrap<D>(call: Promise<{ data?: { data: D } | undefined; error?: unknown; response: Response }>): Promise<D> {
  const { data, error, response } = await call;
  if (data === undefined) throw new Error(`${response.status} ${describeError(error)}`);
  return data.data;
}
