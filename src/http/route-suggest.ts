import { routeNotFound, type ApiError } from '../core/errors.ts';
import { routeNotFoundReason } from '../core/reasons.ts';
import { editDistance } from '../core/suggest.ts';
import type { SandboxContext } from '../context.ts';

/** The 404 of an unknown route, with its reason and the route it most likely meant. */
export const unknownRoute = (ctx: SandboxContext, method: string, url: string): ApiError =>
  routeNotFoundReason(routeNotFound(method, url), method, url, nearestRoute(ctx, method, url));

/**
 * The route a 404'd request most likely meant (the ROUTE_NOT_FOUND
 * reason): the same path under another method, or a path one typo away
 * (`/v1/product/:id`). Runs only when no route matched, never on the 200 path.
 */
export function nearestRoute(ctx: SandboxContext, method: string, url: string): string | null {
  const wanted = url.split('?')[0]!.replace(/\/+$/, '').split('/');
  if (wanted.length > 12) return null;
  let best: { route: string; cost: number } | null = null;
  for (const route of ctx.routes.routes) {
    if (route.method === 'HEAD') continue;
    const segments = route.url.replace(/\/+$/, '').split('/');
    if (segments.length !== wanted.length || segments[1] !== wanted[1]) continue;
    let cost = route.method === method ? 0 : 1;
    for (let i = 2; i < segments.length && cost <= 3; i++) {
      if (!segments[i]!.startsWith(':')) cost += editDistance(wanted[i]!.toLowerCase().slice(0, 60), segments[i]!);
    }
    if (!best || cost < best.cost) best = { route: `${route.method} ${route.url}`, cost };
  }
  return best && best.cost > 0 && best.cost <= 2 ? best.route : null;
}
