import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { loadScenarioFile } from '../../src/scenarios/load.ts';
import { runScenario, type StepResult } from '../../src/scenarios/runner.ts';
import { ScenarioSchema } from '../../src/scenarios/schema.ts';
import { mismatch, readPath, render } from '../../src/scenarios/template.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';

describe('templates and matching', () => {
  it('renders variables, keeping the type of a whole-string variable', () => {
    expect(render({ a: '{{n}}', b: 'id-{{s}}', c: ['{{s}}'], d: '{{wrong:code}}' }, { n: 5, s: 'x', code: '093519' })).toEqual({
      a: 5,
      b: 'id-x',
      c: ['x'],
      d: '104620',
    });
    expect(() => render('{{missing}}', {})).toThrow('unknown variable {{missing}}');
  });

  it('reads paths and matches partially, naming the first difference', () => {
    expect(readPath({ body: { data: [{ id: 'a' }] } }, 'body.data[0].id')).toBe('a');
    expect(readPath({ headers: { 'x-request-id': 'r' } }, 'headers.x-request-id')).toBe('r');
    expect(mismatch({ data: { id: 'a' } }, { data: { id: 'a', extra: 1 }, more: true })).toBeNull();
    expect(mismatch({ data: [{ id: '*' }] }, { data: [{ id: 'z' }] })).toBeNull();
    expect(mismatch({ data: { id: 'a' } }, { data: { id: 'b' } })).toBe('body.data.id: expected "a", got "b"');
    expect(mismatch({ x: '*' }, {})).toBe('body.x: expected a value, got nothing');
    expect(mismatch([1], { not: 'array' })).toMatch(/expected an array/);
  });
});

describe('loading scenario files', () => {
  it('names the file and the JSON path of a mistake', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbx-scn-'));
    const file = join(dir, 'bad.json');
    await writeFile(file, JSON.stringify({ name: 'bad', description: 'x', steps: [{ request: { method: 'GET', path: 'no-slash' } }] }));
    await expect(loadScenarioFile(file)).rejects.toThrow(`${file}:1:76: steps[0] "GET no-slash": request.path:`);
    await writeFile(file, '{ nope');
    await expect(loadScenarioFile(file)).rejects.toThrow(`${file}:1:3: malformed JSON: expected a double-quoted key, found "n"`);
  });

  it('reads every time field as a duration or milliseconds', () => {
    const scenario = ScenarioSchema.parse({
      name: 'durations',
      description: 'x',
      steps: [
        { control: { action: 'advanceClock', ms: '1h30m' } },
        { control: { action: 'setSuspension', enabled: true, windowMs: '1m', durationMs: '5m' } },
        { control: { action: 'addFault', fault: { status: 503, latencyMs: '250ms' } } },
        { waitForDelivery: { receiver: 'r', type: 'booking.created', advanceMs: '2d' } },
        { control: { action: 'advanceClock', ms: 250 } },
      ],
    });
    expect(scenario.steps).toMatchObject([
      { control: { ms: 5_400_000 } },
      { control: { windowMs: 60_000, durationMs: 300_000 } },
      { control: { fault: { latencyMs: 250 } } },
      { waitForDelivery: { advanceMs: 172_800_000 } },
      { control: { ms: 250 } },
    ]);
  });
});

describe('running', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
  });
  afterAll(() => sandbox.stop());

  it('stops at the first failing step and says what differed', async () => {
    const scenario = ScenarioSchema.parse({
      name: 'failing',
      description: 'expects the wrong thing',
      steps: [
        { request: { method: 'GET', path: '/v1/products?limit=1', key: '{{keys.live}}' }, expect: { status: 200 }, capture: { id: 'body.data[0].id' } },
        { request: { method: 'GET', path: '/v1/products/{{id}}', key: '{{keys.live}}' }, expect: { body: { data: { title: 'Not this title' } } } },
        { request: { method: 'GET', path: '/v1/products', key: '{{keys.live}}' } },
      ],
    });
    const seen: StepResult[] = [];
    const result = await runScenario(scenario, { url: sandbox.url }, (s) => seen.push(s));
    expect(result.passed).toBe(false);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[1]!.message).toMatch(/^body\.data\.title: expected "Not this title", got "/);
    expect(seen).toEqual(result.steps);
  });

  it('the CLI prints each step and exits 1 on failure, 0 on success', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sbx-scn-'));
    const bad = join(dir, 'bad.json');
    await writeFile(
      bad,
      JSON.stringify({
        name: 'bad',
        description: 'x',
        steps: [{ name: 'wants a 418', request: { method: 'GET', path: '/__sandbox/health' }, expect: { status: 418 } }],
      }),
    );
    const failed = await runCliInProcess(['scenario', 'run', bad, '--url', sandbox.url]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('✗ wants a 418');
    expect(failed.stdout).toContain('status: expected 418, got 200');
    const good = join(dir, 'good.json');
    await writeFile(
      good,
      JSON.stringify({
        name: 'good',
        description: 'x',
        steps: [{ request: { method: 'GET', path: '/__sandbox/health' }, expect: { status: 200, body: { data: { status: 'ok' } } } }],
      }),
    );
    const passed = await runCliInProcess(['scenario', 'run', good, '--url', sandbox.url, '--json']);
    expect(passed.code).toBe(0);
    expect(JSON.parse(passed.stdout)).toMatchObject({ name: 'good', passed: true });
  });
});
