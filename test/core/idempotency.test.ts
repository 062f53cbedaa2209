import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import { canonicalJson, Idempotency, IDEMPOTENCY_RETENTION_MS } from '../../src/core/idempotency.ts';
import { openStore } from '../../src/storage/index.ts';

async function setup() {
  const clock = new Clock('manual', 0);
  const { store } = await openStore({});
  return { clock, idem: new Idempotency(store, clock) };
}

describe('idempotency store', () => {
  it('a key still in flight is a 409', async () => {
    const { idem } = await setup();
    expect(idem.begin('ws', 'k1', 'POST', '/v1/forms', { a: 1 })).toEqual({ kind: 'new' });
    expect(() => idem.begin('ws', 'k1', 'POST', '/v1/forms', { a: 1 })).toThrow(expect.objectContaining({ statusCode: 409 }));
    // another workspace may use the same key
    expect(idem.begin('other', 'k1', 'POST', '/v1/forms', { a: 1 })).toEqual({ kind: 'new' });
  });

  it('replays a finished request; a different body is a 422', async () => {
    const { idem } = await setup();
    idem.begin('ws', 'k', 'POST', '/v1/forms', { a: 1, b: [1, 2] });
    await idem.finish('ws', 'k', 'POST', '/v1/forms', { a: 1, b: [1, 2] }, 201, '{"id":"x"}');
    const replay = idem.begin('ws', 'k', 'POST', '/v1/forms', { b: [1, 2], a: 1 });
    expect(replay).toMatchObject({ kind: 'replay', record: { statusCode: 201, body: '{"id":"x"}' } });
    expect(() => idem.begin('ws', 'k', 'POST', '/v1/forms', { a: 2 })).toThrow(expect.objectContaining({ statusCode: 422 }));
    expect(() => idem.begin('ws', 'k', 'POST', '/v1/bookings', { a: 1, b: [1, 2] })).toThrow(expect.objectContaining({ statusCode: 422 }));
  });

  it('keys expire after 24 h on the sandbox clock, and 5xx outcomes are not kept', async () => {
    const { idem, clock } = await setup();
    idem.begin('ws', 'k', 'POST', '/p', {});
    await idem.finish('ws', 'k', 'POST', '/p', {}, 201, '{}');
    await clock.advance(IDEMPOTENCY_RETENTION_MS - 1);
    expect(idem.begin('ws', 'k', 'POST', '/p', {}).kind).toBe('replay');
    await clock.advance(1);
    expect(idem.begin('ws', 'k', 'POST', '/p', {}).kind).toBe('new');
    await idem.finish('ws', 'k', 'POST', '/p', {}, 500, '{}');
    expect(idem.begin('ws', 'k', 'POST', '/p', {}).kind).toBe('new');
    expect(await idem.purgeExpired()).toBe(1);
  });

  it('canonical JSON ignores key order but not values', () => {
    expect(canonicalJson({ b: 1, a: { d: 2, c: 3 } })).toBe(canonicalJson({ a: { c: 3, d: 2 }, b: 1 }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
});
