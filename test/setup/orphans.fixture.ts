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
  const sandbox = runCli(['start', '--in-memory', '--port', '0', '--json', '--no-rate-limits']);
  await sandbox.firstLine;
  const daemon = runCli(['start', '--detach', '--in-memory', '--port', '0', '--log', `${process.env.ORPHAN_PIDS_FILE}.log`, '--json']);
  const announced = (await daemon.exit).stdout;
  const daemonPid = (JSON.parse(announced) as { pid: number }).pid;
  const group = spawn('bash', ['-c', 'sleep 600 & wait'], { detached: true, stdio: 'ignore' });
  const receiver = runNode(['-e', "require('node:http').createServer((q, s) => s.end()).listen(0, () => console.log('listening'))"]);
  await receiver.firstLine;
  const browser = HAS_CHROMIUM ? await chromium.launch({ executablePath: CHROMIUM }) : null;
  const pids = [sandbox.child.pid, daemonPid, group.pid, receiver.child.pid];
  writeFileSync(process.env.ORPHAN_PIDS_FILE!, JSON.stringify({ pids, announced, browser: Boolean(browser) }));
  await new Promise(() => {}); // until interrupted
}, 600_000);
