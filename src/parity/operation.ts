import { openApiPath } from '../http/openapi.ts';
import type { CatalogRoute } from '../core/route-catalog.ts';

/**
 * The OpenAPI path template of a request path (`/v1/bookings/bk_1` -> `/v1/bookings/{id}`), from
 * the sandbox's own route catalog: the report aggregates by operation, never by concrete path,
 * so that a thousand bookings are one line. A path no /v1 route has gets its id-like segments
 * (a digit, or longer than 24 characters) as `{id}`, so that it too stays one line per shape.
 */
interface Pattern {
  method: string;
  template: string;
  segments: (string | null)[]; // null: a parameter
  statics: number;
}

export class OperationIndex {
  #patterns: Pattern[] = [];
  #seen = -1;

  constructor(private readonly routes: () => readonly CatalogRoute[]) {}

  /** The template of `urlPath` for `method`; a route of another method with the same path counts too. */
  templateOf(method: string, urlPath: string): string {
    // `/v1/bookings/` is the route `/v1/bookings` (the server ignores a trailing slash)
    const segments = (urlPath.length > 1 && urlPath.endsWith('/') ? urlPath.slice(0, -1) : urlPath).split('/');
    let best: Pattern | undefined;
    let bestScore = -1;
    for (const pattern of this.patterns()) {
      if (pattern.segments.length !== segments.length) continue;
      if (!pattern.segments.every((s, i) => (s === null ? segments[i] !== '' : s === segments[i]))) continue;
      // static segments first (`/bookings/wizard/session` over `/bookings/{id}/...`), then the same method
      const score = pattern.statics * 2 + (pattern.method === method ? 1 : 0);
      if (score > bestScore) [best, bestScore] = [pattern, score];
    }
    // '', 'v1', then the resource's segments
    return best?.template ?? segments.map((s, i) => (i > 1 && (/\d/.test(s) || s.length > 24) ? '{id}' : s)).join('/');
  }

  /** The catalog grows while apps are built (the control plane's, on first use): re-read when it did. */
  private patterns(): Pattern[] {
    const routes = this.routes();
    if (routes.length === this.#seen) return this.#patterns;
    this.#seen = routes.length;
    this.#patterns = routes
      .filter((route) => route.url.startsWith('/v1/') && route.method !== 'HEAD' && route.method !== 'OPTIONS')
      .map((route) => {
        const segments = route.url.split('/').map((s) => (s.startsWith(':') ? null : s));
        return { method: route.method, template: openApiPath(route.url), segments, statics: segments.filter((s) => s !== null).length };
      });
    return this.#patterns;
  }
}
