import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root } from '../docs/extract.ts';
import { sh } from '../docs/run.ts';
import { firstBookingBlock, firstBookingScript } from './readme-booking.ts';
import { startSandbox, type StartedSandbox } from './start.ts';

/**
 * The README's first booking works on its tenth run as on its first, against one data file
 * that keeps every booking: a real `sandbox start --data <file>`, the block run as written five
 * times, the sandbox stopped and started again on the same file, five times more. The first
 * departure the block finds has 8 seats and each run takes 2, so the later runs must find
 * another departure with room (README, "Try it").
 */
const RUNS = 10;
const RESTART_AFTER = 5;

const dir = mkdtempSync(join(tmpdir(), 'tcs-first-booking-'));
const data = join(dir, 'db.json');
let sandbox: StartedSandbox | undefined;
afterAll(async () => {
  await sandbox?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Booked {
  id: string;
  departureId: string;
  status: string;
  adults: number;
}

describe('journey: the first booking, ten times on one data file', () => {
  it('every run books 2 adults; when a departure is full the next run books the next one, across a restart', { timeout: 240_000 }, async () => {
    const block = firstBookingBlock();
    const booked: Booked[] = [];
    const offered: string[] = [];
    for (let run = 1; run <= RUNS; run++) {
      if (run === 1 || run === RESTART_AFTER + 1) {
        await sandbox?.stop();
        // limits counted, not enforced: runs a second apart would spend the sandbox tier's burst of 5, which a reader never does
        sandbox = await startSandbox(['--data', data, '--no-rate-limits']);
        offered.push(/bookable\s+(dept_[\w-]+)/.exec(sandbox.banner)![1]!);
      }
      const ran = await sh(`set -e\n${firstBookingScript(block, sandbox!.url)}`, root);
      expect(ran.code, `run ${run}: ${ran.output}`).toBe(0);
      const booking = (JSON.parse(ran.output) as { data: Booked }).data;
      expect(booking, `run ${run}`).toMatchObject({ status: 'pending', adults: 2, departureId: expect.stringMatching(/^dept_/) });
      booked.push(booking);
    }
    expect(new Set(booked.map((b) => b.id)).size).toBe(RUNS);
    // the banner's offer is what the block books, at the first start and after the restart
    expect(booked[0]!.departureId).toBe(offered[0]);
    expect(booked[RESTART_AFTER]!.departureId).toBe(offered[1]);
    // the first departure filled up (8 seats, 2 a run), and the block moved on
    expect(new Set(booked.map((b) => b.departureId)).size).toBeGreaterThan(1);
  });
});
