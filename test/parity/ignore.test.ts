import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ignoreMatcher, parseIgnoreFlag, readIgnoreFile } from '../../src/parity/ignore.ts';

describe('parity ignore rules', () => {
  it('reads the flag form: [METHOD ]path glob[:kind[:field glob]], or kind:[METHOD ]path glob', () => {
    expect(parseIgnoreFlag('GET /v1/products*:extra-field')).toEqual({ path: 'GET /v1/products*', kind: 'extra-field' });
    expect(parseIgnoreFlag('get /v1/bookings/*')).toEqual({ path: 'GET /v1/bookings/*' });
    expect(parseIgnoreFlag('/v1/products/:id')).toEqual({ path: '/v1/products/{id}' });
    expect(parseIgnoreFlag('/v1/products/:id:type:data.price*')).toEqual({ path: '/v1/products/{id}', kind: 'type', field: 'data.price*' });
    expect(parseIgnoreFlag('*:unknown-id')).toEqual({ path: '*', kind: 'unknown-id' });
    // the kind first, as `sandbox proxy --ignore` documents it
    expect(parseIgnoreFlag('header:GET /v1/products*')).toEqual({ path: 'GET /v1/products*', kind: 'header' });
    expect(parseIgnoreFlag('type:/v1/products/:id')).toEqual({ path: '/v1/products/{id}', kind: 'type' });
  });

  it('refuses a rule it cannot read, in one line that says why', () => {
    expect(() => parseIgnoreFlag('/v1/products:extra-fields')).toThrow(/unknown kind "extra-fields"; the kinds are status, missing-field/);
    expect(() => parseIgnoreFlag(':type')).toThrow(/the path glob is empty/);
    expect(() => parseIgnoreFlag('v1/products')).toThrow(/must start with \/ or \*/);
    expect(() => parseIgnoreFlag('/v1/x:type:')).toThrow(/field glob after the kind is empty/);
  });

  it('reads a JSON file: a list of rules or {ignore: [...]}, objects or flag strings', () => {
    const dir = mkdtempSync(join(tmpdir(), 'parity-ignore-'));
    const file = join(dir, 'ignore.json');
    writeFileSync(file, JSON.stringify({ ignore: [{ path: '/v1/bookings/*', kind: 'enum' }, 'GET /v1/products:header:X-Request-ID'] }));
    expect(readIgnoreFile(file)).toEqual([
      { path: '/v1/bookings/*', kind: 'enum' },
      { path: 'GET /v1/products', kind: 'header', field: 'X-Request-ID' },
    ]);
    writeFileSync(file, JSON.stringify([{ path: '/v1/x', kinds: 'enum' }]));
    expect(() => readIgnoreFile(file)).toThrow(`${file}, rule 1: unknown key "kinds"; a rule has path, kind and field`);
    writeFileSync(file, '{"ignore": [');
    expect(() => readIgnoreFile(file)).toThrow(new RegExp(`^${file.replace(/[.\\/]/g, '\\$&')}: not JSON`));
    expect(() => readIgnoreFile(join(dir, 'none.json'))).toThrow(/no such ignore file/);
  });

  it('matches a glob over the path template alone, or over `METHOD path` when the rule names a method', () => {
    const ignores = ignoreMatcher([
      { path: 'POST /v1/bookings*', kind: 'status' },
      { path: '/v1/products/{id}', field: 'data.*' },
    ]);
    expect(ignores('status', 'POST', '/v1/bookings', '')).toBe(true);
    expect(ignores('status', 'GET', '/v1/bookings', '')).toBe(false);
    expect(ignores('type', 'POST', '/v1/bookings', '')).toBe(false);
    expect(ignores('type', 'GET', '/v1/products/{id}', 'data.price')).toBe(true);
    expect(ignores('header', 'GET', '/v1/products/{id}', 'X-Request-ID')).toBe(false);
    expect(ignores('type', 'GET', '/v1/products/{id}/extensions', 'data.price')).toBe(false);
  });
});
