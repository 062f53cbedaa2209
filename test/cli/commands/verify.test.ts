import { describe, expect, it } from 'vitest';
import { KEYS } from '../../helpers/sandbox.ts';
import { json, useSandbox } from './harness.ts';

/** `sandbox verify`, an assertion on the request log that exits 0 or 1. */
const t = useSandbox();
/** a second of sandbox time between requests: the sandbox tier's burst of 5 never answers 429 here */
const products = async () => {
  await t.sandbox.clock.advance(1000);
  return t.api('GET', '/v1/products?limit=1', KEYS.sandboxFull);
};

describe('sandbox verify', () => {
  it('exits 0 when the count holds and 1, with the nearest misses, when it does not', async () => {
    const first = await products();
    const since = first.headers.get('x-request-id')!;
    for (let i = 0; i < 3; i++) expect((await products()).status).toBe(200);
    expect((await t.cli(['fault', 'add', '--path', '/v1/products', '--status', '503', '--times', '1'])).code).toBe(0);
    expect((await products()).status).toBe(503);
    expect((await t.api('GET', '/v1/products/prod_nope', KEYS.sandboxFull)).status).toBeGreaterThanOrEqual(400);

    const held = await t.cli(['verify', '--method', 'get', '--path', '/v1/products', '--status', '200', '--count', '3', '--since', since]);
    expect(held.code).toBe(0);
    expect(held.stdout).toBe(`3 requests match GET /v1/products status 200 since ${since}; expected exactly 3\n`);

    const wrong = await t.cli(['verify', '--method', 'GET', '--path', '/v1/products', '--status', '200', '--count', '5', '--since', since]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toBe(`sandbox: 3 requests match GET /v1/products status 200 since ${since}; expected exactly 5\n`);
    // the 503 differs in its status only; the refusal on another path differs in path and status, so is no near miss
    expect(wrong.stdout).toMatch(/^Nearest misses:\n {2}\S+ {2}GET {5}\/v1\/products\?limit=1 {2}503 .+\(status differs\)\n$/);

    const all = json(await t.cli(['verify', '--path', '/v1/products/*', '--json']));
    expect(all).toMatchObject({ ok: true, matched: 1, expected: 'at least 1' });
  });

  it('--at-most and --at-least bound the count; too many lists the requests counted', async () => {
    await t.sandbox.clock.advance(500); // past the requests of the test before
    const since = new Date(t.sandbox.clock.now()).toISOString();
    await products();
    await products();
    const tooMany = await t.cli(['verify', '--path', '/v1/products', '--at-most', '1', '--since', since]);
    expect(tooMany.code).toBe(1);
    expect(tooMany.stdout).toMatch(/^Counted:\n( {2}\S+ {2}GET .+\n){2}$/);
    expect((await t.cli(['verify', '--path', '/v1/products', '--at-least', '2', '--at-most', '2', '--since', since])).code).toBe(0);
    const live = t.sandbox.workspaces.find((w) => w.mode === 'live')!;
    expect((await t.cli(['verify', '--path', '/v1/products', '--at-most', '0', '--workspace', live.name])).code).toBe(0);
  });

  it('refuses a --since that is neither a request id nor a time, and counts that cannot hold, in one line', async () => {
    const bad = await t.cli(['verify', '--since', 'yesterday']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^sandbox: --since "yesterday" is neither a request id in the log nor an ISO time/);
    expect((await t.cli(['verify', '--at-least', '3', '--at-most', '1'])).stderr).toBe('sandbox: --at-least 3 is more than --at-most 1: no count can hold\n');
  });
});
