import { describe, expect, it } from 'vitest';
import { KEYS } from '../../helpers/sandbox.ts';
import { json, useSandbox } from './harness.ts';

/** Rate limits and faults that compose. */
const t = useSandbox();
const sandboxWorkspace = () => t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
const products = () => t.api('GET', '/v1/products?limit=1', KEYS.sandboxFull);
const reasonOf = (r: Response) => r.headers.get('x-sandbox-reason')?.split(' ')[0];

describe('sandbox ratelimit exhaust --window', () => {
  it('burst empties the burst tokens alone: a 429 for the burst, and the next token lets a request through', async () => {
    const r = await t.cli(['ratelimit', 'exhaust', '--window', 'burst', '--workspace', sandboxWorkspace().name, '--json']);
    expect(r.code).toBe(0);
    const bucket = json(r);
    expect(bucket).toMatchObject({ burstTokens: 0 });
    expect(bucket.remaining).toBeGreaterThan(0);
    const refused = await products();
    expect(refused.status).toBe(429);
    expect(reasonOf(refused)).toBe('RATE_LIMIT_BURST');
    await t.sandbox.clock.advance(1000);
    expect((await products()).status).toBe(200);
  });

  it('minute empties the minute window alone; without --window both are emptied', async () => {
    await t.sandbox.clock.advance(60_000);
    const minute = json(await t.cli(['ratelimit', 'exhaust', '--window', 'minute', '--workspace', sandboxWorkspace().name, '--json']));
    expect(minute).toMatchObject({ remaining: 0, burstTokens: 5 });
    expect(reasonOf(await products())).toBe('RATE_LIMIT_MINUTE');
    await t.sandbox.clock.advance(60_000);
    expect(json(await t.cli(['ratelimit', 'exhaust', '--workspace', sandboxWorkspace().name, '--json']))).toMatchObject({ remaining: 0, burstTokens: 0 });
  });

  it('refuses another window in one line', async () => {
    const r = await t.cli(['ratelimit', 'exhaust', '--window', 'hour']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('sandbox: --window must be burst or minute (default: both), not "hour"\n');
  });
});

describe('sandbox fault add on a workspace whose limits are enforced', () => {
  it("says in one line that the tier's 429s will mix in, and how to keep them out", async () => {
    const r = await t.cli(['fault', 'add', '--path', '/v1/products', '--status', '503', '--workspace', sandboxWorkspace().name, '--json']);
    expect(r.code).toBe(0);
    expect(json(r)).toMatchObject({ status: 503 });
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^note: rate limits are enforced \(.+: sandbox tier, 100\/min, burst 5\), so their 429s will mix with this rule's answers; to keep them out, start the sandbox with --no-rate-limits .*`sandbox ratelimit mode live --workspace ".+"`/,
    );
    await t.cli(['fault', 'clear']);
  });

  it('says nothing on a workspace that only reports its limits', async () => {
    const created = json(await t.cli(['workspace', 'create', '--rate-limits', 'report', '--name', 'Quiet', '--json']));
    const r = await t.cli(['fault', 'add', '--status', '503', '--workspace', created.id]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    await t.cli(['fault', 'clear']);
  });
});
