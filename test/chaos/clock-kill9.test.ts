/**
 * The clock is state: a clock change is acknowledged once it is on
 * disk, so `sandbox start --data` killed with SIGKILL right after an advance
 * comes back with the advanced clock, and its ready line says so.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { startSandbox, stopSandbox } from './process.ts';

const DAY = 86_400_000;
const root = await mkdtemp(join(tmpdir(), 'tcs-clock-kill9-'));
afterAll(() => rm(root, { recursive: true, force: true }));

type ReadyLine = { clock: { source: string; mode: string; now: string; offsetMs: number } };
const clockOf = async (url: string) => ((await (await fetch(`${url}/__sandbox/clock`)).json()) as { data: { nowMs: number; now: string } }).data;
const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}/__sandbox${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

async function kill9(started: Awaited<ReturnType<typeof startSandbox>>): Promise<void> {
  started.run.child.kill('SIGKILL');
  expect((await started.run.exit).signal).toBe('SIGKILL');
}

describe('the clock after kill -9', () => {
  it('a real clock advanced 3 days is 3 days ahead again after kill -9, and the ready line says it was restored', async () => {
    const file = join(root, 'real.json');
    const first = await startSandbox(file);
    expect((await post(first.url, '/clock/advance', { ms: 3 * DAY })).status).toBe(200);
    await kill9(first);

    const second = await startSandbox(file);
    try {
      const ahead = (await clockOf(second.url)).nowMs - Date.now();
      expect(ahead).toBeGreaterThan(3 * DAY - 60_000);
      expect(ahead).toBeLessThan(3 * DAY + 60_000);
      const ready = JSON.parse(await second.run.firstLine) as ReadyLine;
      expect(ready.clock).toMatchObject({ source: 'restored', mode: 'real' });
    } finally {
      await stopSandbox(second.run);
    }
  });

  it('a manual clock set to 2026-01-17 comes back there after kill -9; the banner says so', async () => {
    const file = join(root, 'manual.json');
    const first = await startSandbox(file, ['--clock', 'manual']);
    expect((await post(first.url, '/clock/set', { at: '2026-01-17T09:00:00.000Z' })).status).toBe(200);
    await kill9(first);

    const second = await startSandbox(file, ['--clock', 'manual']);
    try {
      expect((await clockOf(second.url)).now).toBe('2026-01-17T09:00:00.000Z');
    } finally {
      await stopSandbox(second.run);
    }
    // an earlier --clock-start does not take the clock back behind what it dated
    const banner = runCli(['start', '--data', file, '--port', '0', '--no-rate-limits', '--clock', 'manual', '--clock-start', '2026-01-16T00:00:00Z']);
    try {
      await expect.poll(() => banner.output().stdout, { timeout: 20_000 }).toContain('Ctrl+C');
      expect(banner.output().stdout).toContain('clock: manual at 2026-01-17T09:00:00.000Z, restored (later than --clock-start');
    } finally {
      banner.child.kill('SIGTERM');
      expect((await banner.exit).code).toBe(0);
    }
  });
});
