import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import type { ApiError } from '../../src/core/errors.ts';
import {
  canonicalJson,
  IDEMPOTENCY,
  Idempotency,
  IDEMPOTENCY_MAX_KEYS,
  IDEMPOTENCY_TRIM_BATCH,
  MAX_SECRET_REPLAYS,
  type IdempotencyRecord,
} from '../../src/core/idempotency.ts';
import { openStore } from '../../src/storage/index.ts';

/**
 * The idempotency store (src/core/idempotency.ts) on a manual clock: a key's life (new, in
 * flight, replayed, expired after 24 h), the refusals and their reasons, the replay of an answer
 * holding a secret, the bound on saved outcomes per workspace, the purge on each workspace's clock
 * and the canonical JSON of a body. Over HTTP: test/http/idempotency.test.ts.
 */
const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);
const T0_ISO = '2026-01-15T09:00:00.000Z';
/** 24 h after T0: when an outcome saved at T0 expires */
const T0_PLUS_24H_ISO = '2026-01-16T09:00:00.000Z';
const DAY_MS = 24 * 3_600_000;

async function setup() {
  const clock = new Clock('manual', T0);
  const { store } = await openStore({});
  return { clock, store, idem: new Idempotency(store, clock), records: IDEMPOTENCY.in(store) };
}

/** What `fn` threw, as the API answers it: status, body and reason. */
function refusal(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    const e = err as ApiError;
    return { status: e.statusCode, body: e.body, reason: e.reason };
  }
  throw new Error('expected a refusal');
}

async function save(idem: Idempotency, ws: string, key: string, body: unknown = {}, status = 201, payload = '{}') {
  expect(idem.begin(ws, key, 'POST', '/v1/forms', body)).toEqual({ kind: 'new' });
  return idem.finish(ws, key, 'POST', '/v1/forms', body, status, payload);
}

describe('a key of a workspace: new, in flight, replayed, expired', () => {
  it('a key still in flight is a 409; another workspace may use the same key', async () => {
    const { idem } = await setup();
    expect(idem.begin('ws', 'k1', 'POST', '/v1/forms', { a: 1 })).toEqual({ kind: 'new' });
    expect(() => idem.begin('ws', 'k1', 'POST', '/v1/forms', { a: 1 })).toThrow(expect.objectContaining({ statusCode: 409 }));
    expect(idem.begin('other', 'k1', 'POST', '/v1/forms', { a: 1 })).toEqual({ kind: 'new' });
  });

  it('replays a finished request whatever its key order; another body or path is a 422', async () => {
    const { idem } = await setup();
    idem.begin('ws', 'k', 'POST', '/v1/forms', { a: 1, b: [1, 2] });
    await idem.finish('ws', 'k', 'POST', '/v1/forms', { a: 1, b: [1, 2] }, 201, '{"id":"x"}');
    expect(idem.begin('ws', 'k', 'POST', '/v1/forms', { b: [1, 2], a: 1 })).toMatchObject({ kind: 'replay', record: { statusCode: 201, body: '{"id":"x"}' } });
    expect(() => idem.begin('ws', 'k', 'POST', '/v1/forms', { a: 2 })).toThrow(expect.objectContaining({ statusCode: 422 }));
    expect(() => idem.begin('ws', 'k', 'POST', '/v1/bookings', { a: 1, b: [1, 2] })).toThrow(expect.objectContaining({ statusCode: 422 }));
  });

  it('keys expire after 24 h on the sandbox clock, and 5xx outcomes are not kept', async () => {
    const { idem, clock } = await setup();
    idem.begin('ws', 'k', 'POST', '/p', {});
    await idem.finish('ws', 'k', 'POST', '/p', {}, 201, '{}');
    await clock.advance(DAY_MS - 1);
    expect(idem.begin('ws', 'k', 'POST', '/p', {}).kind).toBe('replay');
    await clock.advance(1);
    expect(idem.begin('ws', 'k', 'POST', '/p', {}).kind).toBe('new');
    await idem.finish('ws', 'k', 'POST', '/p', {}, 500, '{}');
    expect(idem.begin('ws', 'k', 'POST', '/p', {}).kind).toBe('new');
    expect(await idem.purgeExpired()).toBe(1);
  });
});

describe('idempotency: the refusals and their reasons', () => {
  it('an empty key is a 400 naming the bound; 1, 255 and 256 characters are keys (the API description says "any unique string"); past 1,024, a bound of the sandbox', async () => {
    const { idem } = await setup();
    expect(refusal(() => idem.begin('ws', '', 'POST', '/p', {}))).toEqual({
      status: 400,
      body: { error: 'Idempotency-Key must be 1 to 255 characters', code: 'IDEMPOTENCY_KEY_INVALID' },
      reason: null,
    });
    for (const key of ['k', 'k'.repeat(255), 'k'.repeat(256), 'k'.repeat(1024)]) expect(idem.begin('ws', key, 'POST', '/p', {}).kind).toBe('new');
    expect(refusal(() => idem.begin('ws', 'k'.repeat(1025), 'POST', '/p', {})).body).toMatchObject({
      code: 'IDEMPOTENCY_KEY_INVALID',
      error: expect.stringMatching(/at most 1024 characters/),
    });
  });

  it('a key in flight is a 409 whose reason quotes the key, cut at 64 characters', async () => {
    const { idem } = await setup();
    const key = 'a'.repeat(64) + 'b'.repeat(36);
    idem.begin('ws', key, 'POST', '/p', {});
    expect(refusal(() => idem.begin('ws', key, 'POST', '/p', {}))).toEqual({
      status: 409,
      body: { error: 'A request with this Idempotency-Key is still in progress; retry later', code: 'IDEMPOTENCY_IN_PROGRESS' },
      reason: {
        code: 'IDEMPOTENCY_IN_PROGRESS',
        message: `Idempotency-Key "${'a'.repeat(64)}" belongs to a request of this workspace that has not answered yet; retry once it has`,
      },
    });
    // release() frees the key without saving anything
    idem.release('ws', key);
    expect(idem.begin('ws', key, 'POST', '/p', {}).kind).toBe('new');
  });

  it('a reused key is a 422 whose reason says when it was used, what it answered, until when, and how the request differs', async () => {
    const { idem, clock } = await setup();
    const key = 'x'.repeat(70);
    await save(idem, 'ws', key, { a: 1 }, 201);
    await clock.advance(5_000);
    const first = `Idempotency-Key "${'x'.repeat(64)}" was first used at ${T0_ISO} (answered 201; kept until ${T0_PLUS_24H_ISO})`;
    const body = { error: 'Idempotency-Key was already used with a different request; use a new key', code: 'IDEMPOTENCY_KEY_REUSED' };
    expect(refusal(() => idem.begin('ws', key, 'POST', '/v1/forms', { a: 2 }))).toEqual({
      status: 422,
      body,
      reason: { code: 'IDEMPOTENCY_KEY_REUSED', message: `${first}: same method and path, another body` },
    });
    // another path alone, or another method alone, is "that request was …"
    expect(refusal(() => idem.begin('ws', key, 'POST', '/v1/bookings', { a: 1 })).reason?.message).toBe(`${first}: that request was POST /v1/forms`);
    expect(refusal(() => idem.begin('ws', key, 'PUT', '/v1/forms', { a: 1 })).reason?.message).toBe(`${first}: that request was POST /v1/forms`);
  });

  it('the fingerprint is method, path and canonical body: each part counts, key order does not', async () => {
    const { idem } = await setup();
    await save(idem, 'ws', 'k', { a: 1, b: { c: [1, { d: 2, e: 3 }] } });
    expect(idem.begin('ws', 'k', 'POST', '/v1/forms', { b: { c: [1, { e: 3, d: 2 }] }, a: 1 }).kind).toBe('replay');
    expect(() => idem.begin('ws', 'k', 'POST', '/v1/forms', { a: 1, b: { c: [1, { d: 2, e: 4 }] } })).toThrow(expect.objectContaining({ statusCode: 422 }));
    expect(() => idem.begin('ws', 'k', 'POST', '/v1/forms', { a: 1, b: { c: [{ d: 2, e: 3 }, 1] } })).toThrow(expect.objectContaining({ statusCode: 422 }));
    expect(() => idem.begin('ws', 'k', 'POST', '/v1/forms', undefined)).toThrow(expect.objectContaining({ statusCode: 422 }));
  });

  it('the saved record holds the request, its answer and its 24 h window', async () => {
    const { idem, records } = await setup();
    const saved = await save(idem, 'ws', 'k', { a: 1 }, 200, '{"ok":true}');
    expect(saved).toMatchObject({
      id: 'k',
      method: 'POST',
      path: '/v1/forms',
      statusCode: 200,
      body: '{"ok":true}',
      createdAt: T0_ISO,
      expiresAt: T0_PLUS_24H_ISO,
    });
    expect(records.get('ws', 'k')).toEqual(saved);
    // a 4xx is saved (the request reached the handler), a 500 is not and frees the key
    await save(idem, 'ws', 'k4', {}, 499);
    expect(idem.begin('ws', 'k4', 'POST', '/v1/forms', {})).toMatchObject({ kind: 'replay', record: { statusCode: 499 } });
    expect(await save(idem, 'ws', 'k5', {}, 500)).toBeUndefined();
    expect(records.get('ws', 'k5')).toBeUndefined();
    expect(idem.begin('ws', 'k5', 'POST', '/v1/forms', {}).kind).toBe('new');
  });
});

describe('idempotency: an answer holding a secret', () => {
  const saved = { statusCode: 201, payload: '{"id":"okey_1","secret":"shown once"}' };
  const secret = { statusCode: 201, payload: '{"id":"okey_1","secret":"org_abc_s3cr3t"}' };

  it('is replayed from memory within the window, and the saved answer is what reaches the disk', async () => {
    const { idem, records } = await setup();
    idem.begin('ws', 'k', 'POST', '/v1/keys', {});
    await idem.finishWithSecret('ws', 'k', 'POST', '/v1/keys', {}, saved, secret);
    expect(records.get('ws', 'k')).toMatchObject({ statusCode: 201, body: saved.payload });
    expect(idem.begin('ws', 'k', 'POST', '/v1/keys', {})).toMatchObject({ kind: 'replay', record: { statusCode: 201, body: secret.payload } });
    // another workspace's same key has nothing to replay
    expect(idem.begin('other', 'k', 'POST', '/v1/keys', {})).toEqual({ kind: 'new' });
  });

  it('a new process (a restart) replays the saved answer', async () => {
    const { idem, store, clock } = await setup();
    idem.begin('ws', 'k', 'POST', '/v1/keys', {});
    await idem.finishWithSecret('ws', 'k', 'POST', '/v1/keys', {}, saved, secret);
    const restarted = new Idempotency(store, clock);
    expect(restarted.begin('ws', 'k', 'POST', '/v1/keys', {})).toMatchObject({ kind: 'replay', record: { body: saved.payload } });
  });

  it('is not replayed for a record it does not belong to (another createdAt, as after a state import)', async () => {
    const { idem, store, records } = await setup();
    idem.begin('ws', 'k', 'POST', '/v1/keys', {});
    await idem.finishWithSecret('ws', 'k', 'POST', '/v1/keys', {}, saved, secret);
    const record = records.get('ws', 'k')!;
    const imported: IdempotencyRecord = { ...record, createdAt: '2026-01-15T08:59:59.000Z', body: '{"imported":true}' };
    await store.commit([records.putOp('ws', imported)]);
    expect(idem.begin('ws', 'k', 'POST', '/v1/keys', {})).toMatchObject({ kind: 'replay', record: { body: '{"imported":true}' } });
  });

  it('is forgotten once the key is used anew after its window', async () => {
    const { idem, clock } = await setup();
    idem.begin('ws', 'k', 'POST', '/v1/keys', {});
    await idem.finishWithSecret('ws', 'k', 'POST', '/v1/keys', {}, saved, secret);
    await clock.advance(DAY_MS);
    expect(idem.begin('ws', 'k', 'POST', '/v1/keys', {})).toEqual({ kind: 'new' });
    await idem.finish('ws', 'k', 'POST', '/v1/keys', {}, 201, '{"second":true}');
    expect(idem.begin('ws', 'k', 'POST', '/v1/keys', {})).toMatchObject({ kind: 'replay', record: { body: '{"second":true}' } });
  });

  it('a 5xx saved answer keeps no secret either', async () => {
    const { idem, records } = await setup();
    idem.begin('ws', 'k', 'POST', '/v1/keys', {});
    await idem.finishWithSecret('ws', 'k', 'POST', '/v1/keys', {}, { statusCode: 503, payload: '{}' }, secret);
    expect(records.get('ws', 'k')).toBeUndefined();
    expect(idem.begin('ws', 'k', 'POST', '/v1/keys', {})).toEqual({ kind: 'new' });
  });

  it(`at most ${MAX_SECRET_REPLAYS} are held: the oldest goes first`, async () => {
    const { idem } = await setup();
    for (let i = 0; i <= MAX_SECRET_REPLAYS; i++) {
      idem.begin('ws', `k${i}`, 'POST', '/v1/keys', {});
      await idem.finishWithSecret('ws', `k${i}`, 'POST', '/v1/keys', {}, saved, { statusCode: 201, payload: `secret ${i}` });
    }
    expect(idem.begin('ws', 'k0', 'POST', '/v1/keys', {})).toMatchObject({ record: { body: saved.payload } });
    expect(idem.begin('ws', 'k1', 'POST', '/v1/keys', {})).toMatchObject({ record: { body: 'secret 1' } });
    expect(idem.begin('ws', `k${MAX_SECRET_REPLAYS}`, 'POST', '/v1/keys', {})).toMatchObject({ record: { body: `secret ${MAX_SECRET_REPLAYS}` } });
  });
});

describe(`idempotency: at most ${IDEMPOTENCY_MAX_KEYS} + ${IDEMPOTENCY_TRIM_BATCH} saved outcomes per workspace`, () => {
  /** `count` outcomes written as a state import would, oldest first, without going through a request. */
  async function imported(count: number) {
    const s = await setup();
    const ops = [];
    for (let i = 0; i < count; i++) {
      ops.push(
        s.records.putOp('ws', {
          id: `old-${i}`,
          method: 'POST',
          path: '/p',
          fingerprint: 'f',
          statusCode: 201,
          body: '{}',
          createdAt: T0_ISO,
          expiresAt: T0_PLUS_24H_ISO,
        }),
      );
    }
    await s.store.commit(ops);
    return s;
  }

  it('the bound is checked every batch of saves; then the oldest past it are deleted, one more for the save', async () => {
    const { idem, records } = await imported(IDEMPOTENCY_MAX_KEYS);
    for (let i = 1; i < IDEMPOTENCY_TRIM_BATCH; i++) await save(idem, 'ws', `new-${i}`);
    expect(records.list('ws')).toHaveLength(IDEMPOTENCY_MAX_KEYS + IDEMPOTENCY_TRIM_BATCH - 1);
    await save(idem, 'ws', `new-${IDEMPOTENCY_TRIM_BATCH}`);
    const left = records.list('ws');
    expect(left).toHaveLength(IDEMPOTENCY_MAX_KEYS);
    expect(records.get('ws', `old-${IDEMPOTENCY_TRIM_BATCH - 1}`)).toBeUndefined();
    expect(records.get('ws', `old-${IDEMPOTENCY_TRIM_BATCH}`)).toBeDefined();
    expect(records.get('ws', 'new-1')).toBeDefined();
    expect(records.get('ws', `new-${IDEMPOTENCY_TRIM_BATCH}`)).toBeDefined();
  });

  it('a workspace exactly at the bound loses its oldest outcome to make room', async () => {
    const { idem, records } = await imported(IDEMPOTENCY_MAX_KEYS - IDEMPOTENCY_TRIM_BATCH + 1);
    for (let i = 1; i <= IDEMPOTENCY_TRIM_BATCH; i++) await save(idem, 'ws', `new-${i}`);
    expect(records.list('ws')).toHaveLength(IDEMPOTENCY_MAX_KEYS);
    expect(records.get('ws', 'old-0')).toBeUndefined();
    expect(records.get('ws', 'old-1')).toBeDefined();
  });

  it("another workspace's saves do not count toward this one's batch", async () => {
    const { idem, records } = await imported(IDEMPOTENCY_MAX_KEYS);
    for (let i = 1; i < IDEMPOTENCY_TRIM_BATCH; i++) await save(idem, 'other', `o-${i}`);
    await save(idem, 'ws', 'new-1');
    expect(records.list('ws')).toHaveLength(IDEMPOTENCY_MAX_KEYS + 1);
  });
});

describe('idempotency: the purge', () => {
  it("deletes a workspace's outcomes at their expiry on that workspace's clock, and only those", async () => {
    const { idem, clock, records } = await setup();
    await save(idem, 'ws', 'k');
    await save(idem, 'other', 'k');
    expect(await idem.purgeExpired()).toBe(0);
    await clock.advanceWorkspace('ws', DAY_MS - 1);
    expect(await idem.purgeExpired()).toBe(0);
    await clock.advanceWorkspace('ws', 1);
    expect(await idem.purgeExpired()).toBe(1);
    expect(records.get('ws', 'k')).toBeUndefined();
    expect(records.get('other', 'k')).toBeDefined();
  });
});

describe('canonical JSON', () => {
  it('sorts object keys at every depth, drops undefined members and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: 'x' }, u: undefined, n: null })).toBe('{"a":{"c":"x","d":[2,1]},"b":1,"n":null}');
    expect(canonicalJson({ b: 1, a: 2, c: 3, aa: 4, B: 5 })).toBe('{"B":5,"a":2,"aa":4,"b":1,"c":3}');
    expect(canonicalJson([{ y: 1, x: 2 }, 'z'])).toBe('[{"x":2,"y":1},"z"]');
    expect(canonicalJson('s')).toBe('"s"');
    expect(canonicalJson(3)).toBe('3');
    expect(canonicalJson(true)).toBe('true');
    expect(canonicalJson(null)).toBe('null');
    expect(canonicalJson(undefined)).toBe('');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
  });
});
