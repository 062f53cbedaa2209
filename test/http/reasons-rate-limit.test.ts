import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { Clock } from '../../src/core/clock.ts';
import { frozenClockHint } from '../../src/core/reasons.ts';
import { KEYS } from '../helpers/sandbox.ts';

/** A response's JSON, untyped: these tests read a few fields of it. */
const j = async (response: Promise<Response>): Promise<any> => (await response).json();

/**
 * Issue 24: a 429 says which bucket (workspace or organization key) and which
 * meter (burst, minute, second) refused, when it lets a request through, and,
 * on a manual clock, that the clock is frozen and how to advance it; over a
 * real socket, header and request log alike. The body stays as documented.
 */
let s: Sandbox | undefined;
afterEach(() => s?.stop());

const get = (path: string, key: string) => fetch(`${s!.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
const post = (path: string, body: unknown, key?: string) =>
  fetch(`${path.startsWith('/v1') ? s!.url : s!.controlUrl}${path}`, {
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
    const log = (await j(fetch(`${s!.controlUrl}/requests?limit=100`))).data as { requestId: string; reason?: string }[];
    return { at: i, body: await res.text(), reason: res.headers.get('x-sandbox-reason') ?? '', logged: log.find((e) => e.requestId === requestId)?.reason };
  }
  throw new Error(`no 429 in ${max} requests`);
}

describe('429 reasons', () => {
  it('the burst of a sandbox workspace on a manual clock: frozen, and the advance that helps', async () => {
    s = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
    const ws = s.workspaces.find((w) => w.mode === 'sandbox')!.id;
    const r = await firstRefusal(KEYS.sandboxFull);
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
    expect((await get('/v1/products?limit=1', KEYS.sandboxFull)).status).toBe(200);
  });

  it("the minute quota, and the organization key's own burst", async () => {
    s = await createSandbox({ port: 0, clock: 'manual', storage: 'memory' });
    const live = s.workspaces.find((w) => w.mode === 'live')!.id;
    await post('/rate-limits/exhaust', { workspaceId: live });
    const minute = await firstRefusal(KEYS.liveFull, 1);
    expect(minute.logged).toBe(minute.reason);
    expect(minute.reason).toMatch(
      new RegExp(
        `^RATE_LIMIT_MINUTE workspace ${live} \\(live: 3000/min, burst 30/s\\) used its 3000 requests of this minute; the window resets at 2026-01-15T09:01:00.000Z\\. The clock is manual and frozen`,
      ),
    );
    await post(`/workspaces/${live}/clock/advance`, { ms: 60_000 });

    const exported = await j(fetch(`${s.controlUrl}/workspaces/${live}/export`));
    const org = exported.data.organizations[0].id;
    const created = await j(
      post(`/v1/organizations/${org}/api-keys`, { scopes: ['products:read'], rateLimitPolicy: { rps: 100, rpm: 600, burst: 2 } }, KEYS.liveFull),
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
    s = await createSandbox({ port: 0, clock: 'manual', storage: 'memory', suspension: { maxViolations: 1 } });
    const ws = s.workspaces.find((w) => w.mode === 'sandbox')!.id;
    await firstRefusal(KEYS.sandboxFull);
    const r = await firstRefusal(KEYS.sandboxFull, 1);
    expect(r.body).toBe('{"error":"Rate limit exceeded","retry_after":300}');
    expect(r.logged).toBe(r.reason);
    expect(r.reason).toMatch(
      new RegExp(
        `^SUSPENDED workspace ${ws} is suspended until 2026-01-15T09:05:00.000Z \\(this 429 was one too many: more than 1 429s within 60 s; PUT /__sandbox/suspension \\{"enabled":false\\} turns suspension off\\)\\. The clock is manual and frozen`,
      ),
    );
  });

  it('a real clock is never called frozen', () => {
    expect(frozenClockHint(new Clock('real'), 'wksp_1', 600)).toBe('');
    expect(frozenClockHint(new Clock('manual'), null, 600)).toContain('POST /__sandbox/clock/advance {"ms":600}');
  });
});
