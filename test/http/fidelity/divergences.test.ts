import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The published divergence list (docs/divergences.md) names at least these divergences. */
describe('docs/divergences.md', () => {
  const text = readFileSync(new URL('../../../docs/divergences.md', import.meta.url), 'utf8');

  it.each([
    ['http:// webhook URLs on loopback', /`http:\/\/` is accepted for loopback hosts/],
    ['no suspension after excessive 429s', /never suspends/],
    ['revocation at once', /a revoked or expired key fails on the very next request/],
    ['__proto__ keys refused', /__proto__/],
    ['unnamed add-ons', /ADDONS_NOT_NAMED/],
    ['the Host check on loopback', /HOST_NOT_ALLOWED/],
    ['what a cross-site request to /v1 gets', /cross-site simple request .* gets 401/],
    ["the control plane's origin rules", /CROSS_ORIGIN_REFUSED/],
  ])('lists %s', (_name, pattern) => expect(text).toMatch(pattern));

  it('is linked from the README and from api-notes.md', () => {
    for (const file of ['../../../README.md', '../../../docs/api-notes.md']) {
      expect(readFileSync(new URL(file, import.meta.url), 'utf8')).toContain('divergences.md');
    }
  });
});
