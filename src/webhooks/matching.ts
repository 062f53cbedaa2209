import { isCatalogueEvent, WEBHOOK_EVENT_TYPES } from './catalogue.ts';

/**
 * Subscription `events` entries are exact names or wildcard patterns such as
 * `booking.*` (API description, "Events"). A pattern `<prefix>.*` matches every
 * type that starts with `<prefix>.` (so `gallery.*` matches
 * `gallery.file.deleted`); `*` matches everything.
 */
export function matchesPattern(pattern: string, type: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return pattern === type;
}

export const matchesAny = (patterns: readonly string[], type: string): boolean =>
  patterns.some((pattern) => matchesPattern(pattern, type));

/** Why a pattern is unusable, or null: unknown names are rejected, and so are wildcards matching nothing. */
export function patternProblem(pattern: string): string | null {
  if (pattern === '*' || isCatalogueEvent(pattern)) return null;
  if (pattern.endsWith('.*') && WEBHOOK_EVENT_TYPES.some((type) => matchesPattern(pattern, type))) return null;
  return pattern.endsWith('.*')
    ? `"${pattern}" matches no event type; known types: ${WEBHOOK_EVENT_TYPES.join(', ')}`
    : `"${pattern}" is not an event type; known types: ${WEBHOOK_EVENT_TYPES.join(', ')}`;
}
