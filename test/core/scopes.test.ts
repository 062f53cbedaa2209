import { describe, expect, it } from 'vitest';
import { hasScope, scopeGrants, SCOPE_PATTERN } from '../../src/core/scopes.ts';

describe('scope matching (API description, Authentication 4)', () => {
  it.each([
    ['products:read', 'products:read', true],
    ['products:read', 'products:write', false],
    ['products:*', 'products:write', true],
    ['products:*', 'bookings:read', false],
    ['*:read', 'analytics:read', true],
    ['*:read', 'webhooks:write', false],
    ['*', 'webhooks:write', true],
    ['bookings:write', 'bookings:read', false],
  ])('%s grants %s: %s', (granted, required, expected) => {
    expect(scopeGrants(granted, required)).toBe(expected);
  });

  it('a key without scopes (null) has full access; an empty list has none', () => {
    expect(hasScope(null, 'webhooks:write')).toBe(true);
    expect(hasScope([], 'products:read')).toBe(false);
    expect(hasScope(['analytics:read', 'products:*'], 'products:read')).toBe(true);
  });

  it('accepts only well-formed scopes', () => {
    for (const ok of ['*', 'products:read', 'products:*', '*:read', 'gallery_files:write']) expect(SCOPE_PATTERN.test(ok)).toBe(true);
    for (const bad of ['', 'products', ':read', 'products:', '*:*x', 'Products:Read', 'a:b:c']) expect(SCOPE_PATTERN.test(bad)).toBe(false);
  });
});
