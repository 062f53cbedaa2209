// The test run's reaper (test/setup/global.ts): started by the run's
// global setup in a session of its own, it waits for its stdin to close (the
// run ended, or vitest was interrupted or killed: the pipe closes either way),
// then stops every process that carries this run's mark in the environment it
// was started with: sandboxes, `start --detach` daemons, Chromium, receivers,
// tmux servers, npx and bash wrappers, whatever the tests started and did not
// stop, and removes the run's scratch folder. Plain JavaScript: it must start in milliseconds, without tsx.
import { readdirSync, readFileSync, rmSync } from 'node:fs';

const [id, vitestPid, runDir] = process.argv.slice(2);
const MARK = 'SANDBOX_TEST_RUN=';
const GRACE_MS = 2000;
const BOUND_MS = 10_000;

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

function field(pid, file) {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return '';
  }
}

/** This run's processes; while vitest lives, not its own children (its workers). */
function marked() {
  const vitestAlive = alive(Number(vitestPid));
  const found = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const mark = field(name, 'environ')
      .split('\0')
      .find((entry) => entry.startsWith(MARK));
    if (!mark?.slice(MARK.length).split(' ').includes(id)) continue;
    const ppid = /^\d+ \(.*\) \S (\d+)/s.exec(field(name, 'stat'))?.[1];
    if (vitestAlive && ppid === vitestPid) continue;
    found.push({ pid: Number(name), command: field(name, 'cmdline').split('\0').filter(Boolean).join(' ') });
  }
  return found;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function sweep() {
  /** pid -> [command, when it was sent SIGTERM] */
  const stopped = new Map();
  for (const end = Date.now() + BOUND_MS; Date.now() < end; await sleep(100)) {
    const left = marked();
    if (left.length === 0) break;
    for (const { pid, command } of left) {
      // SIGTERM first (a sandbox saves and lets go of its lock); SIGKILL once the grace is over
      const termed = stopped.get(pid)?.[1];
      if (termed !== undefined && Date.now() - termed < GRACE_MS) continue;
      if (termed === undefined) stopped.set(pid, [command, Date.now()]);
      try {
        process.kill(pid, termed === undefined ? 'SIGTERM' : 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
  }
  const names = [...stopped.values()].map(([command]) => command.slice(0, 80));
  if (names.length > 0) process.stderr.write(`test run: stopped ${names.length} process(es) the tests left running: ${names.join('; ')}\n`);
}

process.stdin.on('error', () => {});
process.stdin.on(
  'close',
  () =>
    void sweep().then(() => {
      if (runDir) rmSync(runDir, { recursive: true, force: true }); // the run's scratch folder (the packed tarball...)
      process.exit(0);
    }),
);
process.stdin.resume();
