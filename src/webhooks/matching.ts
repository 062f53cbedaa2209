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

export const matchesAny = (patterns: readonly string[], type: string): boolean => patterns.some((pattern) => matchesPattern(pattern, type));

/**
 * A well-formed event name is `resource.action`: lower-case words joined by
 * dots (`booking.created`, `gallery.file.deleted`); a pattern is `*` or a
 * name prefix followed by `.*` (`booking.*`).
 */
export const WELL_FORMED_EVENT = /^(\*|[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*\.\*|[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+)$/;

/** Why an entry is malformed (a 400), or null. */
export function eventNameProblem(pattern: string): string | null {
  if (WELL_FORMED_EVENT.test(pattern)) return null;
  return `"${pattern}" is not an event name (resource.action, lower case, dot-separated) or a pattern such as booking.* or *`;
}

/**
 * True for a well-formed name or pattern that matches nothing the sandbox
 * emits. Production may emit more names than the sandbox ("Exact event names
 * beyond those seen above: not shown"), so such entries are stored, with a
 * warning (docs/api-notes.md, "Warnings"), and simply never match here.
 */
export const matchesNoKnownEvent = (pattern: string): boolean =>
  pattern !== '*' && !isCatalogueEvent(pattern) && !WEBHOOK_EVENT_TYPES.some((type) => matchesPattern(pattern, type));
