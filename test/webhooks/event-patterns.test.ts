import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/catalogue.ts';
import { eventNameProblem, matchesNoKnownEvent, matchesPattern } from '../../src/webhooks/matching.ts';

/** A subscription's `events`: names and patterns (API description, "Events"), and which match what the sandbox emits. */
describe('event patterns', () => {
  it.each([
    ['*', 'gallery.file.deleted', true],
    ['booking.*', 'booking.created', true],
    ['booking.*', 'payment.succeeded', false],
    ['gallery.*', 'gallery.file.deleted', true],
    ['booking.created', 'booking.created', true],
    ['booking.created', 'booking.cancelled', false],
    ['book*', 'booking.created', false],
  ])('%s matches %s: %s', (pattern, type, expected) => expect(matchesPattern(pattern, type)).toBe(expected));

  it('accepts every well-formed name or pattern, refuses malformed ones', () => {
    for (const type of WEBHOOK_EVENT_TYPES) expect(eventNameProblem(type)).toBeNull();
    for (const ok of ['*', 'booking.*', 'gallery.*', 'gallery.file.*', 'booking.refunded', 'invoice.*', 'product.deleted'])
      expect(eventNameProblem(ok)).toBeNull();
    for (const bad of ['booking', '', 'Booking.Created', 'booking..created', 'booking.*.x', '*.created', 'booking.created '])
      expect(eventNameProblem(bad)).not.toBeNull();
  });

  it('tells which well-formed entries match nothing the sandbox emits', () => {
    for (const known of [...WEBHOOK_EVENT_TYPES, '*', 'booking.*', 'gallery.file.*']) expect(matchesNoKnownEvent(known)).toBe(false);
    for (const unknown of ['booking.refunded', 'product.deleted', 'booking.confirmed', 'invoice.*']) expect(matchesNoKnownEvent(unknown)).toBe(true);
  });
});
