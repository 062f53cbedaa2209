import { describe, expect, it } from 'vitest';
import { KEYS } from '../../helpers/sandbox.ts';
import { expectOneLineFailure, json, useSandbox } from './harness.ts';

const t = useSandbox();
const products = () => t.api('GET', '/v1/products?limit=1', KEYS.sandboxFull);

describe('sandbox clock', () => {
  it('shows the time, advances by a duration and jumps to a time', async () => {
    const start = t.sandbox.clock.now();
    const shown = await t.cli(['clock', '--json']);
    expect(json(shown)).toMatchObject({ mode: 'manual', nowMs: start });

    const advanced = await t.cli(['clock', 'advance', '90s']);
    expect(advanced.code).toBe(0);
    expect(advanced.stdout).toContain(new Date(start + 90_000).toISOString());
    expect(t.sandbox.clock.now()).toBe(start + 90_000);

    const target = new Date(start + 3 * 86_400_000).toISOString();
    const set = await t.cli(['clock', 'set', target, '--json']);
    expect(json(set).now).toBe(target);
  });

  it('refuses a bad duration with one line', async () => {
    expect(expectOneLineFailure(await t.cli(['clock', 'advance', '5 parsecs']))).toMatch(/invalid duration "5 parsecs"/);
  });

  it("a duration past the control plane's bound is refused in the command's words, not as body.ms", async () => {
    expect(expectOneLineFailure(await t.cli(['clock', 'advance', '4000d']))).toBe(
      'sandbox: clock advance moves the clock 3650d (ten years) at most; "4000d" is more',
    );
    const name = t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!.name;
    expect(expectOneLineFailure(await t.cli(['workspace', 'advance', name, '4000d']))).toBe(
      'sandbox: workspace advance moves the clock 3650d (ten years) at most; "4000d" is more',
    );
  });

  it('sets a manual clock backwards', async () => {
    const back = await t.cli(['clock', 'set', '2000-01-01T00:00:00Z', '--json']);
    expect(json(back).now).toBe('2000-01-01T00:00:00.000Z');
  });
});

describe('sandbox fault', () => {
  it('add answers the given status, body and header on the next N requests; list and clear manage rules', async () => {
    const added = await t.cli([
      'fault',
      'add',
      '--path',
      '/v1/products',
      '--status',
      '503',
      '--body',
      '{"error":"Down for maintenance"}',
      '--header',
      'retry-after: 7',
      '--times',
      '2',
      '--workspace',
      t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!.name,
      '--json',
    ]);
    expect(added.code).toBe(0);
    const rule = json(added);
    expect(rule).toMatchObject({ status: 503, remaining: 2, headers: { 'retry-after': '7' } });
    const hit = await products();
    expect(hit.status).toBe(503);
    expect(await hit.json()).toEqual({ error: 'Down for maintenance' });
    expect(hit.headers.get('retry-after')).toBe('7');
    expect((await t.api('GET', '/v1/products?limit=1', KEYS.liveFull)).status).toBe(200); // other workspace

    const listed = await t.cli(['fault', 'list']);
    expect(listed.stdout).toMatch(new RegExp(`${rule.id}\\s+\\* /v1/products workspace wksp_\\S+\\s+answer 503\\s+1\\s+1`));
    const cleared = await t.cli(['fault', 'clear', '--json']);
    expect(json(cleared)).toEqual({ removed: 1, released: 0 });
    expect((await products()).status).toBe(200);
  });

  it('a rule the control plane refuses is one line with the reason', async () => {
    expect(expectOneLineFailure(await t.cli(['fault', 'add', '--path', '/v1/nope', '--status', '503']))).toMatch(/path \/v1\/nope matches no \/v1 route/);
  });

  it('a rule that does nothing is refused in the flags the user typed, not the API fields', async () => {
    const line = expectOneLineFailure(await t.cli(['fault', 'add', '--path', '/v1/products']));
    expect(line).toBe('sandbox: fault add needs what the rule does: --status <code>, --latency <duration> or --drop');
    expect(expectOneLineFailure(await t.cli(['fault', 'add', '--drop', '--status', '503']))).toMatch(/^sandbox: --drop and --status exclude each other/);
  });

  it('--latency reads the duration syntax of clock advance: 250, 250ms, 2s alike', async () => {
    for (const [text, ms] of [
      ['250', 250],
      ['250ms', 250],
      ['2s', 2000],
      ['1.5s', 1500],
    ] as const) {
      const added = await t.cli(['fault', 'add', '--path', '/v1/products', '--latency', text, '--json']);
      expect(added.code, added.stderr).toBe(0);
      expect(json(added).latencyMs).toBe(ms);
    }
    await t.cli(['fault', 'clear']);
    const tooLong = await t.cli(['fault', 'add', '--latency', '5m']);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain('--latency takes a duration from 0 to 2m; "5m" is more');
    const notOne = await t.cli(['fault', 'add', '--latency', 'soon']);
    expect(notOne.stderr).toContain('--latency takes a duration from 0 to 2m, written 250 (ms), 250ms, 2s, 5m, 1h, 2d or 1h30m; not "soon"');
  });
});

describe('sandbox ratelimit', () => {
  it('show prints a table of buckets; exhaust makes the next request a 429; mode switches the limits', async () => {
    const shown = await t.cli(['ratelimit']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^ID\s+WHO\s+MINUTE\s+BURST/m);
    expect(shown.stdout).toMatch(/Aurora Tours\s+\d+\/3000 left/);

    const sandboxWs = t.sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
    const exhausted = await t.cli(['ratelimit', 'exhaust', '--workspace', sandboxWs.id, '--json']);
    expect(json(exhausted)).toMatchObject({ id: sandboxWs.id, remaining: 0 });
    expect((await products()).status).toBe(429);

    const mode = await t.cli(['ratelimit', 'mode', 'live', '--workspace', sandboxWs.id, '--json']);
    expect(json(mode)).toMatchObject({ id: sandboxWs.id, mode: 'live' });
  });
});
