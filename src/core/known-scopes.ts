import { badRequest } from './errors.ts';
import { SCOPE_PATTERN } from './scopes.ts';
import { suggest } from './suggest.ts';
import type { RouteCatalog } from './route-catalog.ts';

/**
 * The scopes the API has: every `<resource>:<action>` some /v1 route requires
 * (API description, "Authentication" 4-5), read from the route catalogue so a
 * new route brings its scope along. A key's scopes may use `*` wildcards.
 */
export interface KnownScopes {
  scopes: string[];
  resources: string[];
  actions: string[];
}

export function knownScopes(catalog: RouteCatalog): KnownScopes {
  const scopes = [...new Set(catalog.routes.map((r) => r.scope).filter((s): s is string => Boolean(s)))].sort();
  const resources = [...new Set(scopes.map((s) => s.split(':')[0]!))].sort();
  const actions = [...new Set(scopes.map((s) => s.split(':')[1]!))].sort();
  return { scopes, resources, actions };
}

/** Why a scope would grant nothing, or null when it is fine; the text names the known ones. */
export function scopeProblem(scope: string, known: KnownScopes): string | null {
  const list = `known resources: ${known.resources.join(', ')}; actions: ${known.actions.join(', ')}`;
  if (!SCOPE_PATTERN.test(scope)) return `scope "${scope}" is not of the form <resource>:<action> (e.g. products:read; * wildcards allowed); ${list}`;
  if (scope === '*') return null;
  const [resource, action] = scope.split(':') as [string, string];
  if (resource !== '*' && !known.resources.includes(resource))
    return `scope "${scope}" names no resource the API has${suggest(resource, known.resources)}; ${list}`;
  if (action !== '*' && !known.actions.includes(action)) return `scope "${scope}" names no action the API has${suggest(action, known.actions)}; ${list}`;
  return null;
}

/** Throws one 400 for the first scope that grants nothing. */
export function assertKnownScopes(scopes: readonly string[] | null | undefined, known: KnownScopes): void {
  for (const scope of scopes ?? []) {
    const problem = scopeProblem(scope, known);
    if (problem) throw badRequest('CONTROL_INVALID', problem);
  }
}
