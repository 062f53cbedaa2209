import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli-in-process.ts';

/** List and run agree on a scenario's step count; a failing run counts what it did not reach. */
describe('scenario step counts', () => {
  it('list counts each run of a repeat, as run does; a failure reports the steps not reached', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tcs-steps-'));
    const step = { request: { method: 'GET', path: '/v1/products?limit=1', key: '{{keys.live}}' }, expect: { status: 200 } };
    const failing = { name: 'expects a teapot', request: { method: 'GET', path: '/v1/products?limit=1', key: '{{keys.live}}' }, expect: { status: 418 } };
    await writeFile(
      join(dir, 'counted.json'),
      JSON.stringify({ name: 'counted', description: 'x', steps: [step, { repeat: 3, steps: [step] }, failing, step, step] }),
    );
    const list = await runCliInProcess(['scenario', 'list', '--dir', dir, '--json'], { SANDBOX_URL: '' });
    expect(JSON.parse(list.stdout)[0].steps).toBe(7);
    const run = await runCliInProcess(['scenario', 'run', 'counted', '--dir', dir], { SANDBOX_URL: '' });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('failed: 4 of 7 steps passed, 2 not reached');
    const json = await runCliInProcess(['scenario', 'run', 'counted', '--dir', dir, '--json'], { SANDBOX_URL: '' });
    expect(JSON.parse(json.stdout)).toMatchObject({ passed: false, total: 7, notReached: 2 });
  });

  it('fault add says in its help that without --workspace it matches every workspace', async () => {
    const help = await runCliInProcess(['fault', 'add', '--help']);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('without --workspace it matches every workspace');
    expect(text).toContain('--workspace <id|name> only requests of this workspace (default: every workspace)');
  });
});
