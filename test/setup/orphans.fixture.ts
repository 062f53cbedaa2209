import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { it } from 'vitest';
import { CHROMIUM } from '../../bench/lib/chromium.ts';
import { runCli, runNode } from '../helpers/cli.ts';
import { HAS_CHROMIUM } from './chromium.ts';

/**
 * Run by test/setup/orphans.test.ts in a vitest of its own, then interrupted:
 * starts the kinds of process the suite starts (a sandbox, a `start --detach`
 * daemon in a session of its own, a process group as the docs test makes, a
 * receiver, Chromium), writes their pids to ORPHAN_PIDS_FILE, and waits.
 */
it('starts processes, then waits to be interrupted', async () => {
  // all at once: what the test checks is what is left of them, not the order they started in
  const sandbox = runCli(['start', '--in-memory', '--port', '0', '--json', '--no-rate-limits']);
  const daemon = runCli(['start', '--detach', '--in-memory', '--port', '0', '--log', `${process.env.ORPHAN_PIDS_FILE}.log`, '--json']);
  const group = spawn('bash', ['-c', 'sleep 600 & wait'], { detached: true, stdio: 'ignore' });
  const receiver = runNode(['-e', "require('node:http').createServer((q, s) => s.end()).listen(0, () => console.log('listening'))"]);
  const [, daemonExit, , browser] = await Promise.all([
    sandbox.firstLine,
    daemon.exit,
    receiver.firstLine,
    HAS_CHROMIUM ? chromium.launch({ executablePath: CHROMIUM }) : null,
  ]);
  const announced = daemonExit.stdout;
  const daemonPid = (JSON.parse(announced) as { pid: number }).pid;
  const pids = [sandbox.child.pid, daemonPid, group.pid, receiver.child.pid];
  writeFileSync(process.env.ORPHAN_PIDS_FILE!, JSON.stringify({ pids, announced, browser: Boolean(browser) }));
  await new Promise(() => {}); // until interrupted
}, 600_000);
