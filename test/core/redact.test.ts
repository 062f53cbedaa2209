import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSecretName, redactHeader, redactJson, redactQuery, redactShapes, redactText, redactUrl } from '../../src/core/redact.ts';
import { propertyRuns } from '../setup/depth.ts';

const ORG_KEY = 'org_AbCd1234_0123456789abcdefghijABCDEFGHIJ01';
const ORG_KEY_32 = `org_AbCd1234_${'x'.repeat(32)}`;
const WORKSPACE_KEY = 'tcs_test_0123456789abcdefghijABCDEFGHIJ01';
const WHSEC = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw6n5x2B3x2XI=';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl';

describe('secret names', () => {
  it.each([
    'key',
    'secret',
    'token',
    'password',
    'apiKey',
    'api_key',
    'API-KEY',
    'x-api-key',
    'Api-Key',
    'X-Auth-Token',
    'client_secret',
    'clientSecret',
    'authorization',
    'Proxy-Authorization',
    'access_token',
    'refreshToken',
    'webhookSecret',
    'dbPassword',
    'cookie',
    'Set-Cookie',
    'credentials',
    'private_key',
  ])('%s holds a secret', (name) => {
    expect(isSecretName(name)).toBe(true);
  });

  it.each([
    'keyPrefix',
    'keyId',
    'id',
    'idempotency-key',
    'Idempotency-Key',
    'nextPageToken',
    'page_token',
    'cursorToken',
    'roomCategoryKey',
    'status',
    'webhook-signature',
    'x-request-id',
    'tokenType',
    'keys',
  ])('%s does not', (name) => {
    expect(isSecretName(name)).toBe(false);
  });
});

describe('redacted values show their kind and length', () => {
  it('by shape, anywhere in a string', () => {
    expect(redactShapes(`key ${ORG_KEY} was revoked`)).toBe('key [redacted organization key, 45 chars] was revoked');
    expect(redactShapes(WORKSPACE_KEY)).toBe('[redacted workspace key, 41 chars]');
    expect(redactShapes(WHSEC)).toBe('[redacted webhook secret, 50 chars]');
    expect(redactShapes(JWT)).toBe('[redacted JWT, 53 chars]');
    expect(redactShapes('sk_live_abcdefghij0123')).toBe('[redacted secret key, 22 chars]');
    expect(redactShapes('Authorization: Bearer abc.def-ghi_jkl')).toBe('Authorization: Bearer [redacted bearer token, 15 chars]');
    // glued to an id a client made up from it
    expect(redactShapes(`book_${WORKSPACE_KEY}`)).toBe('book_[redacted workspace key, 41 chars]');
    expect(redactShapes(`x_${WHSEC}`)).toBe('x_[redacted webhook secret, 50 chars]');
  });

  it('leaves what only looks near a secret: ids, listing prefixes, a short org key', () => {
    for (const text of ['org_123', 'org_AbCd1234', 'tcs_test_borealis_f', 'orgkey_7f3a', 'book_1a2b', 'whsec_', 'Bearer', `${ORG_KEY_32}x`]) {
      expect(redactShapes(text)).toBe(text);
    }
  });

  it('by field name at any depth, with the shape as its kind when it has one', () => {
    const body = {
      data: {
        id: 'orgkey_1',
        key: ORG_KEY,
        keyPrefix: 'AbCd1234',
        nested: [{ secret: WHSEC }, { password: 'hunter22', token: 'abc' }],
        note: `sent ${WORKSPACE_KEY}`,
      },
    };
    expect(redactJson(body)).toEqual({
      data: {
        id: 'orgkey_1',
        key: '[redacted organization key, 45 chars]',
        keyPrefix: 'AbCd1234',
        nested: [{ secret: '[redacted webhook secret, 50 chars]' }, { password: '[redacted password, 8 chars]', token: '[redacted token, 3 chars]' }],
        note: 'sent [redacted workspace key, 41 chars]',
      },
    });
  });

  it('keeps an empty, null or boolean secret field as it is, and redacts a number', () => {
    expect(redactJson({ secret: '', token: null, key: false, password: 1234 })).toEqual({
      secret: '',
      token: null,
      key: false,
      password: '[redacted password, 4 chars]',
    });
  });

  it('gives back the same value when nothing is secret, and is idempotent', () => {
    const body = { data: [{ id: 'prod_1', name: 'Fjord kayak' }] };
    expect(redactJson(body)).toBe(body);
    const once = redactJson({ key: ORG_KEY, list: [WHSEC] });
    expect(redactJson(once)).toEqual(once);
  });
});

describe('headers, queries and URLs', () => {
  it('a credential header whole, Authorization with its scheme kept', () => {
    expect(redactHeader('x-api-key', 'abcdef123456')).toBe('[redacted xapikey, 12 chars]');
    expect(redactHeader('Authorization', `Bearer ${ORG_KEY}`)).toBe('Bearer [redacted organization key, 45 chars]');
    expect(redactHeader('authorization', 'Token s3cr3t-value')).toBe('Token [redacted credential, 12 chars]');
    expect(redactHeader('set-cookie', 'sid=abc; HttpOnly')).toBe('[redacted setcookie, 17 chars]');
    expect(redactHeader('x-request-id', 'req_1')).toBe('req_1');
  });

  it('credential query parameters, and key shapes in any parameter; the rest as written', () => {
    expect(redactQuery(`limit=5&api_key=${ORG_KEY}&q=a+b`)).toBe('limit=5&api_key=%5Bredacted%20organization%20key%2C%2045%20chars%5D&q=a+b');
    expect(redactQuery('access_token=abc123&token=x&key=y')).toBe(
      'access_token=%5Bredacted%20accesstoken%2C%206%20chars%5D&token=%5Bredacted%20token%2C%201%20chars%5D&key=%5Bredacted%20key%2C%201%20chars%5D',
    );
    expect(redactQuery(`q=${WORKSPACE_KEY}`)).toBe('q=%5Bredacted%20workspace%20key%2C%2041%20chars%5D');
    expect(redactQuery('limit=5&starting_after=book_1')).toBe('limit=5&starting_after=book_1');
  });

  it('a URL: path by shape, query by name and shape', () => {
    expect(redactUrl('/v1/products?limit=1')).toBe('/v1/products?limit=1');
    expect(redactUrl(`/v1/x/${WORKSPACE_KEY}?api_key=k`)).toBe('/v1/x/[redacted workspace key, 41 chars]?api_key=%5Bredacted%20apikey%2C%201%20chars%5D');
  });
});

describe('bodies as text', () => {
  it('JSON is redacted as JSON; unchanged text comes back byte for byte', () => {
    expect(redactText(`{"data":{"key":"${ORG_KEY}"}}`)).toBe('{"data":{"key":"[redacted organization key, 45 chars]"}}');
    const plain = '{ "data" : [ 1.0, "x" ] }';
    expect(redactText(plain)).toBe(plain);
  });

  it('JSON cut short: each named pair and every shape', () => {
    expect(redactText(`{"data":{"secret":"${WHSEC}","name":"a","password":"hunter2`)).toBe(
      '{"data":{"secret":"[redacted webhook secret, 50 chars]","name":"a","password":"[redacted password, 7 chars]',
    );
  });
});

describe('no planted secret survives', () => {
  const secret = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9]{8}$/).chain((prefix) => fc.stringMatching(/^[A-Za-z0-9]{32}$/).map((s) => `org_${prefix}_${s}`)),
    fc.stringMatching(/^[A-Za-z0-9]{32}$/).map((s) => `tcs_live_${s}`),
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `whsec_${Buffer.from(b).toString('base64')}`),
  );
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string(),
      fc.integer(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 6 }), tie('value'), { maxKeys: 3 }),
    ),
  })).value;

  it('planted as a value anywhere, or inside a longer string, in a JSON body, its text or a query', () => {
    fc.assert(
      fc.property(json, secret, fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (body, planted, before, after) => {
        const holder = { body, deep: [{ x: { note: `${before} ${planted} ${after}` } }], plain: planted };
        const redacted = JSON.stringify(redactJson(holder));
        expect(redacted).not.toContain(planted);
        expect(redactText(JSON.stringify(holder))).not.toContain(planted);
        expect(decodeURIComponent(redactQuery(`a=1&q=${encodeURIComponent(planted)}`))).not.toContain(planted);
      }),
      { numRuns: propertyRuns(200) },
    );
  });
});
