import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import { frozenClockHint } from '../../src/core/reasons.ts';
import type { WorkspaceHandle } from '../../src/workspaces/handle.ts';
import { KEYS, testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * Rate limits over HTTP (API description, "Limits", and the 429 of "Errors"): the workspace
 * limits on the sandbox clock, the headers, a created workspace's choice to enforce or only
 * report them, and the reason a 429 gives (which bucket and meter refused, until when, and on a
 * manual clock how to advance it). The limiter's rules one by one: test/core/rate-limit.test.ts.
 *
 * The tests share one sandbox (manual clock at 2026-01-15T09:00:00Z, listening, so the reasons
 * are read over a real socket too). Each test takes workspaces of its own and moves only their
 * clocks (`advance`), so each starts at 09:00:00 with empty buckets.
 */
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ listen: true, port: 0 });
});
afterAll(() => t.sandbox.stop());

const products = (key: string) => t.request('GET', '/v1/products?limit=1', { key });
const statusesOf = async (key: string, count: number) => {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) statuses.push((await products(key)).statusCode);
  return statuses;
};
const sandboxMode = () => t.sandbox.createWorkspace();
const liveMode = () => t.sandbox.createWorkspace({ template: t.liveWorkspaceId });
const fullKey = (w: WorkspaceHandle) => w.keys[0]!.key;

describe('rate limits per workspace, on the sandbox clock (Limits)', () => {
  it('sandbox: 5 in a burst, then 429 {error, retry_after} with Retry-After; 5 more a second later', async () => {
    const w = await sandboxMode();
    expect(await statusesOf(fullKey(w), 6)).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await products(fullKey(w));
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 1 });
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['x-ratelimit-remaining']).toBe('95');
    await w.advance(999);
    expect((await products(fullKey(w))).statusCode).toBe(429);
    await w.advance(1);
    expect(await statusesOf(fullKey(w), 6)).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it('sandbox: 5 a second pass ("burst 5 requests per second"), second after second, until the 100 of the minute', async () => {
    const w = await sandboxMode();
    const passed: number[] = [];
    for (let second = 0; second < 21; second++) {
      for (let i = 0; i < 5; i++) if ((await products(fullKey(w))).statusCode === 200) passed.push(second);
      await w.advance(1_000);
    }
    expect(passed.length).toBe(100);
    expect(passed.at(-1)).toBe(19); // the 21st second finds the minute's quota used
  });

  it('sandbox: the minute quota of 100 holds even when the burst has room; X-RateLimit-Reset is the end of the minute', async () => {
    const w = await sandboxMode();
    let ok = 0;
    for (let i = 0; i < 100; i++) {
      if ((await products(fullKey(w))).statusCode === 200) ok++;
      if (i < 99) await w.advance(600); // within the burst of 5 a second
    }
    expect(ok).toBe(100);
    await w.advance(100); // 09:00:59.5: the burst allows, the minute quota does not
    const refused = await products(fullKey(w));
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['x-ratelimit-remaining']).toBe('0');
    expect(refused.headers['x-ratelimit-reset']).toBe('1768467660'); // 2026-01-15T09:01:00Z in Unix seconds
    expect(refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 1 });
    await w.advance(1_000);
    const after = await products(fullKey(w));
    expect(after.statusCode).toBe(200);
    expect(after.headers['x-ratelimit-remaining']).toBe('99');
  });

  it('live: a burst of 30, and never more than 30 within one second', async () => {
    const w = await liveMode();
    const statuses = await statusesOf(fullKey(w), 31);
    expect(statuses.filter((s) => s === 200)).toHaveLength(30);
    expect(statuses[30]).toBe(429);
    await w.advance(600); // a bucket refilled at the minute rate would let 30 more through here
    expect((await products(fullKey(w))).statusCode).toBe(429);
    await w.advance(400);
    expect((await products(fullKey(w))).statusCode).toBe(200);
  });

  it('limits are per workspace: one workspace being throttled does not affect the other; keys of a workspace share it', async () => {
    const throttled = await sandboxMode();
    const other = await liveMode();
    await statusesOf(fullKey(throttled), 5);
    expect((await products(throttled.keys[1]!.key)).statusCode).toBe(429); // its products:read key
    expect((await products(fullKey(other))).statusCode).toBe(200);
  });

  it('unauthenticated requests are not counted', async () => {
    const w = await sandboxMode();
    for (let i = 0; i < 10; i++) expect((await t.request('GET', '/v1/products', { key: null })).statusCode).toBe(401);
    expect((await products(fullKey(w))).headers['x-ratelimit-remaining']).toBe('99');
  });

  it('the fixture keys are limited alike', async () => {
    // last in this describe: it uses the fixture sandbox workspace, which no other test here touches
    expect(await statusesOf(KEYS.sandboxFull, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await products(KEYS.sandboxRead)).statusCode).toBe(429);
  });
});

describe('rateLimits chosen when a workspace is created: enforce or report', () => {
  it('report: 150 requests on a frozen manual clock all answer 200; the ones over the limit say so beside the documented headers', async () => {
    const before = t.sandbox.report().rateLimits; // the sandbox's count of the whole file so far
    const w = await t.sandbox.createWorkspace({ rateLimits: 'report' });
    expect(w.rateLimits).toBe('report');
    const statuses: number[] = [];
    let reported = 0;
    for (let i = 0; i < 150; i++) {
      const res = await products(fullKey(w));
      statuses.push(res.statusCode);
      if (res.headers['x-sandbox-rate-limit']) reported += 1;
      if (i === 149) expect(res.headers['x-ratelimit-remaining']).toBe('0');
    }
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(reported).toBe(145); // the burst of 5 passes on its own
    const after = t.sandbox.report().rateLimits;
    expect({ refused: after.refused - before.refused, reported: after.reported - before.reported }).toEqual({ refused: 0, reported: 145 });
  });

  it('without a choice, a workspace follows the sandbox: enforce by default; a bad choice is a 400', async () => {
    const made = await t.request('POST', '/__sandbox/workspaces', { key: null, body: {} });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.json().data.rateLimits).toBe('enforce');
    expect((await t.request('POST', '/__sandbox/workspaces', { key: null, body: { rateLimits: 'sometimes' } })).statusCode).toBe(400);
  });

  describe('on a sandbox started with enforceRateLimits false (--no-rate-limits)', () => {
    let off: TestSandbox;
    beforeAll(async () => {
      off = await testSandbox({ enforceRateLimits: false });
    });
    afterAll(() => off.sandbox.stop());

    it('the fixture workspaces report their limits and never enforce them', async () => {
      let last;
      for (let i = 0; i < 20; i++) last = await off.request('GET', '/v1/products?limit=1', { key: KEYS.sandboxFull });
      expect(last!.statusCode).toBe(200);
      expect(last!.headers['x-ratelimit-remaining']).toBe('80');
    });

    it('a created workspace reports by default', async () => {
      const made = await off.request('POST', '/__sandbox/workspaces', { key: null, body: {} });
      expect(made.json().data.rateLimits).toBe('report');
    });

    it('enforce, chosen explicitly, wins: the sixth request is a 429 until the workspace advances its own clock', async () => {
      const made = await off.request('POST', '/__sandbox/workspaces', { key: null, body: { rateLimits: 'enforce' } });
      const w = made.json().data as { id: string; keys: { key: string }[] };
      const get = () => off.request('GET', '/v1/products?limit=1', { key: w.keys[0]!.key });
      for (let i = 0; i < 5; i++) expect((await get()).statusCode).toBe(200);
      const refused = await get();
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ error: 'Rate limit exceeded', retry_after: 1 });
      expect((await off.request('POST', `/__sandbox/workspaces/${w.id}/clock/advance`, { key: null, body: { ms: 1000 } })).statusCode).toBe(200);
      expect((await get()).statusCode).toBe(200);
    });
  });
});

/**
 * A 429 says which bucket (workspace or organization key) and which meter (burst, minute,
 * second) refused, when a request may pass again, and, on a manual clock, that the clock is
 * frozen and how to advance it; over a real socket, in the X-Sandbox-Reason header and the
 * request log alike. The body stays as the API description has it.
 */
describe('the reason a 429 gives (X-Sandbox-Reason)', () => {
  /** A response's JSON, untyped: these tests read a few fields of it. */
  const j = async (response: Promise<Response>): Promise<any> => (await response).json();
  const get = (path: string, key: string) => fetch(`${t.sandbox.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const post = (path: string, body: unknown, key?: string) =>
    fetch(`${path.startsWith('/v1') ? t.sandbox.url : t.sandbox.controlUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });

  /** Requests until the first 429; its body, header and log entry. */
  async function firstRefusal(key: string, max = 50) {
    for (let i = 0; i < max; i++) {
      const res = await get('/v1/products?limit=1', key);
      if (res.status !== 429) continue;
      const requestId = res.headers.get('x-request-id');
      const log = (await j(fetch(`${t.sandbox.controlUrl}/requests?limit=100`))).data as { requestId: string; reason?: string }[];
      return { at: i, body: await res.text(), reason: res.headers.get('x-sandbox-reason') ?? '', logged: log.find((e) => e.requestId === requestId)?.reason };
    }
    throw new Error(`no 429 in ${max} requests`);
  }

  it('the burst of a sandbox workspace on a manual clock: frozen, and the advance that helps', async () => {
    const { id: ws, keys } = await sandboxMode();
    const r = await firstRefusal(keys[0]!.key);
    expect(r.at).toBe(5);
    expect(r.body).toBe('{"error":"Rate limit exceeded","retry_after":1}');
    expect(r.logged).toBe(r.reason);
    expect(r.reason).toBe(
      `RATE_LIMIT_BURST workspace ${ws} (sandbox: 100/min, burst 5/s) made 5 requests within the last second, its burst; the next may pass at 2026-01-15T09:00:01.000Z. ` +
        `The clock is manual and frozen: nothing refills until it moves. Advance it: POST /__sandbox/workspaces/${ws}/clock/advance {"ms":1000}, ` +
        `\`sandbox workspace advance ${ws} 1000ms\`, or in code workspace.advance(1000) or sandbox.clock.advance(1000)`,
    );
    // the advice works: that advance, and the next request passes
    expect((await post(`/workspaces/${ws}/clock/advance`, { ms: 1000 })).status).toBe(200);
    expect((await get('/v1/products?limit=1', keys[0]!.key)).status).toBe(200);
  });

  it("the minute quota, and the organization key's own burst", async () => {
    const w = await liveMode();
    const live = w.id;
    await post('/rate-limits/exhaust', { workspaceId: live });
    const minute = await firstRefusal(fullKey(w), 1);
    expect(minute.logged).toBe(minute.reason);
    expect(minute.reason).toMatch(
      new RegExp(
        `^RATE_LIMIT_MINUTE workspace ${live} \\(live: 3000/min, burst 30/s\\) used its 3000 requests of this minute; the window resets at 2026-01-15T09:01:00.000Z\\. The clock is manual and frozen`,
      ),
    );
    await w.advance(60_000);

    const exported = await j(fetch(`${t.sandbox.controlUrl}/workspaces/${live}/export`));
    const org = exported.data.organizations[0].id;
    const created = await j(
      post(`/v1/organizations/${org}/api-keys`, { scopes: ['products:read'], rateLimitPolicy: { rps: 100, rpm: 600, burst: 2 } }, fullKey(w)),
    );
    const burst = await firstRefusal(created.data.key);
    expect(burst.at).toBe(2);
    expect(burst.logged).toBe(burst.reason);
    expect(burst.reason).toMatch(
      new RegExp(
        `^RATE_LIMIT_BURST organization key org_${created.data.keyPrefix}\\.\\.\\. \\(rpm 600, burst 2, rps 100\\) used its burst of 2; the next token comes at \\S+Z\\. The clock is manual and frozen: .* \\{"ms":100\\}`,
      ),
    );
  });

  it('suspension: until when, and how to turn it off', async () => {
    const { id: ws, keys } = await sandboxMode();
    const turned = await t.request('PUT', '/__sandbox/suspension', { key: null, body: { enabled: true, maxViolations: 1 } });
    expect(turned.statusCode, turned.body).toBe(200);
    try {
      await firstRefusal(keys[0]!.key);
      const r = await firstRefusal(keys[0]!.key, 1);
      expect(r.body).toBe('{"error":"Rate limit exceeded","retry_after":300}');
      expect(r.logged).toBe(r.reason);
      expect(r.reason).toMatch(
        new RegExp(
          `^SUSPENDED workspace ${ws} is suspended until 2026-01-15T09:05:00.000Z \\(this 429 was one too many: more than 1 429s within 60 s; PUT /__sandbox/suspension \\{"enabled":false\\} turns suspension off\\)\\. The clock is manual and frozen`,
        ),
      );
    } finally {
      await t.request('PUT', '/__sandbox/suspension', { key: null, body: { enabled: false } });
    }
  });

  it('a real clock is never called frozen', () => {
    expect(frozenClockHint(new Clock('real'), 'wksp_1', 600)).toBe('');
    expect(frozenClockHint(new Clock('manual'), null, 600)).toContain('POST /__sandbox/clock/advance {"ms":600}');
  });
});
