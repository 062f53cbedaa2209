import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { json, useSandbox } from './harness.ts';

/**
 * `sandbox scenario validate <file...>`, and the same checks `scenario run`
 * makes before any step: each mistake one line with the
 * file, its line and column, the step's index and name.
 */
const t = useSandbox();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sbx-validate-'));
});

/** Writes a scenario file as a person would: indented, one step a line. */
async function scenarioFile(name: string, top: Record<string, unknown>, steps: unknown[]): Promise<string> {
  const file = join(dir, `${name}.json`);
  const head = JSON.stringify(top, null, 2).replace(/\n}$/, '');
  await writeFile(file, `${head}${Object.keys(top).length ? ',' : ''}\n  "steps": [\n${steps.map((s) => `    ${JSON.stringify(s)}`).join(',\n')}\n  ]\n}\n`);
  return file;
}

const lines = (text: string) => text.trim().split('\n');

describe('sandbox scenario validate', () => {
  it('names each mistake on its own line: file:line:column, the step index and name; a misspelt action gets a did-you-mean and the list', async () => {
    const file = await scenarioFile('mistakes', { name: 'mistakes' }, [
      { request: { method: 'GET', path: '/v1/products', key: '{{keys.sandbox}}' } },
      { name: 'let time pass', control: { action: 'advanceClok', ms: 1000 } },
      { control: { action: 'advanceClock', ms: '5 min' } },
    ]);
    const r = await runCliInProcess(['scenario', 'validate', file]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `sandbox: ${file}:1:1: a scenario file needs "name", "description" and "steps" ("sandbox" and "$comment" are optional); this one has no "description"`,
      `sandbox: ${file}:5:49: steps[1] "let time pass": unknown control action "advanceClok" (did you mean "advanceClock"?); actions: advanceClock, revokeKey, createKey, addFault, addDeliveryFault, clearFaults, exhaustRateLimit, reset, setSuspension, readOtp, get, findDeparture`,
      `sandbox: ${file}:6:46: steps[2] "control: advanceClock": control.ms takes a duration from 0 to 3650d, written 250 (ms), 250ms, 2s, 5m, 1h, 2d or 1h30m; not "5 min"`,
    ]);
  });

  it('gives malformed JSON its line and column', async () => {
    const file = join(dir, 'malformed.json');
    await writeFile(file, '{\n  "name": "x",\n  "description": "y",\n  "steps": [ { "control": } ]\n}\n');
    const r = await runCliInProcess(['scenario', 'validate', file]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(`sandbox: ${file}:4:27: malformed JSON: expected a value, found "}"`);
  });

  it('finds variables no earlier step defines, receivers never started, and workspace ids the fixtures do not have', async () => {
    const file = await scenarioFile('references', { name: 'references', description: 'd' }, [
      { request: { method: 'GET', path: '/v1/bookings/{{subId}}', key: '{{keys.sandbox}}' } },
      { control: { action: 'exhaustRateLimit', workspaceId: 'Aurora Tours' } },
      { control: { action: 'addFault', fault: { workspaceId: 'wksp_nope', status: 503 } } },
      { waitForDelivery: { receiver: 'hook', type: 'booking.created' } },
    ]);
    const r = await runCliInProcess(['scenario', 'validate', file]);
    expect(r.code).toBe(1);
    const [variable, name, unknown, receiver, ...rest] = lines(r.stderr);
    expect(rest).toEqual([]);
    expect(variable).toMatch(
      new RegExp(
        `^sandbox: ${file}:5:53: steps\\[0\\] "GET /v1/bookings/\\{\\{subId\\}\\}": request\\.path: no step before this one defines \\{\\{subId\\}\\}`,
      ),
    );
    expect(name).toMatch(/^.*:6:\d+: steps\[1\] "control: exhaustRateLimit": workspaceId: "Aurora Tours" is the name of workspace wksp_\S+: give its id/);
    expect(unknown).toMatch(/^.*:7:\d+: steps\[2\] "control: addFault": fault\.workspaceId: no workspace has the id "wksp_nope"; the workspaces: wksp_/);
    expect(receiver).toMatch(/^.*:8:\d+: steps\[3\] "wait for booking\.created": waitForDelivery\.receiver: no receiver step before this one starts "hook"/);
  });

  it('passes good files and stops at the first invalid one', async () => {
    const good = await scenarioFile('good', { name: 'good', description: 'd' }, [
      { request: { method: 'GET', path: '/v1/products?limit=1', key: '{{keys.sandbox}}' }, capture: { productId: 'body.data[0].id' } },
      { request: { method: 'GET', path: '/v1/products/{{productId}}', key: '{{keys.sandbox}}' } },
    ]);
    const bad = await scenarioFile('bad', { name: 'bad', description: 'd' }, [{ reqest: { method: 'GET', path: '/' } }]);
    const alsoBad = await scenarioFile('also-bad', { name: 'also-bad' }, [{ request: { method: 'GET', path: '/' } }]);
    const r = await runCliInProcess(['scenario', 'validate', good, bad, alsoBad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`ok  ${good}  good, 2 steps`);
    expect(lines(r.stderr)).toEqual([
      `sandbox: ${bad}:5:6: steps[0] "step": unknown key "reqest" (did you mean "request"?); a step has one of: request, control, receiver, waitForDelivery, repeat`,
    ]);
    expect(r.stdout + r.stderr).not.toContain(alsoBad);
  });
});

describe('sandbox scenario run checks first', () => {
  it('runs no step of a file with a mistake, and says each one', async () => {
    const file = await scenarioFile('checked-first', { name: 'checked-first', description: 'd' }, [
      { control: { action: 'addFault', fault: { path: '/v1/products', status: 503 } } },
      { control: { action: 'advanceClok', ms: 1 } },
    ]);
    const r = await t.cli(['scenario', 'run', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`sandbox: ${file}:6:26: steps[1] "control: advanceClok": unknown control action "advanceClok"`);
    expect(r.stdout).not.toContain('✓');
    expect(json(await t.cli(['fault', 'list', '--json']))).toEqual([]);
  });

  it('prints a step with the value its {{variable}} was given, and reads durations in ms and advanceMs', async () => {
    const before = t.sandbox.clock.now();
    const file = await scenarioFile('values', { name: 'values', description: 'd' }, [
      { request: { method: 'GET', path: '/v1/products?limit=1', key: '{{keys.sandbox}}' }, expect: { status: 200 }, capture: { productId: 'body.data[0].id' } },
      { request: { method: 'GET', path: '/v1/products/{{productId}}', key: '{{keys.sandbox}}' }, expect: { status: 200 } },
      { control: { action: 'advanceClock', ms: '2m' } },
    ]);
    const r = await t.cli(['scenario', 'run', file]);
    expect(r.code).toBe(0);
    const productId = /GET \/v1\/products\/(prod_\S+) -> 200/.exec(r.stdout)?.[1];
    expect(productId, r.stdout).toBeDefined();
    expect(r.stdout).not.toContain('{{productId}}');
    expect(t.sandbox.clock.now()).toBe(before + 120_000);
  });
});
