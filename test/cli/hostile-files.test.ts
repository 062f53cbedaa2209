/**
 * Fixtures, scenarios, imports and --data are read only
 * when they are regular files (or symlinks to one) under a size limit; anything
 * else gets one line. No read can block the process or outlive SIGTERM: read
 * blindly, each of these hangs (a FIFO: `readFile` waits for a writer forever,
 * holding a libuv file-system thread), or reads /dev/zero until "Invalid string
 * length", and SIGTERM leaves the process alive.
 */
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { copyFile, mkdir, mkdtemp, open, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES_DIR } from '../../src/config.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { OUTPUT_DEADLINE_MS, runCli, waitForStderr, type Running } from '../helpers/cli.ts';

let root: string;
let cacheDir: string;
const started: Running[] = [];
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'sbx-hostile-'));
  cacheDir = join(root, 'cache');
});
afterAll(() => {
  for (const run of started) run.child.kill('SIGKILL');
});

/** A process that must end on its own; a hang fails the test (and is killed) instead of stalling the suite. */
function cli(args: string[]): Running {
  const run = runCli(args, { SANDBOX_CACHE_DIR: cacheDir });
  started.push(run);
  return run;
}
async function ended(run: Running): Promise<Awaited<Running['exit']>> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const { stdout, stderr } = run.output();
      reject(new Error(`still running after ${OUTPUT_DEADLINE_MS} ms\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`));
    }, OUTPUT_DEADLINE_MS);
  });
  try {
    return await Promise.race([run.exit, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** A copy of the bundled fixtures, and an empty scenarios directory. */
async function project(): Promise<{ dir: string; fixtures: string; scenarios: string }> {
  const dir = await mkdtemp(join(root, 'p-'));
  const fixtures = join(dir, 'fixtures');
  const scenarios = join(dir, 'scenarios');
  await mkdir(fixtures);
  await mkdir(scenarios);
  for (const name of await readdir(DEFAULT_FIXTURES_DIR)) await copyFile(join(DEFAULT_FIXTURES_DIR, name), join(fixtures, name));
  return { dir, fixtures, scenarios };
}
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

/** Polls (bounded) until a thread of `pid` sleeps in a pipe read (Linux /proc). */
async function blockedInPipeRead(pid: number): Promise<void> {
  for (let i = 0; i < 750; i++) {
    const tasks = await readdir(`/proc/${pid}/task`).catch(() => []);
    const waits = await Promise.all(tasks.map((tid) => readFile(`/proc/${pid}/task/${tid}/wchan`, 'utf8').catch(() => '')));
    if (waits.some((wait) => wait.endsWith('pipe_read'))) return; // pipe_read, or anon_pipe_read on newer kernels
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no thread of ${pid} is blocked in a pipe read`);
}

/** One line on stderr, naming the file and what it is. */
function expectRefused(result: Awaited<Running['exit']>, file: string, kind: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stdout).toBe('');
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toContain(file);
  expect(lines[0]).toMatch(kind);
}

describe('sandbox start with a fixtures directory holding something other than a regular file', () => {
  it('a named pipe: exits 1 with one line instead of hanging with no banner', async () => {
    const { fixtures } = await project();
    mkfifo(join(fixtures, 'pipe.json'));
    expectRefused(
      await ended(cli(['start', '--in-memory', '--fixtures', fixtures, '--port', '0'])),
      'pipe.json',
      /it is a named pipe \(FIFO\); the sandbox reads only regular files/,
    );
  });

  it('a symlink to /dev/zero: exits 1 with one line, without reading it', async () => {
    const { fixtures } = await project();
    await symlink('/dev/zero', join(fixtures, 'zero.json'));
    expectRefused(await ended(cli(['start', '--in-memory', '--fixtures', fixtures, '--port', '0'])), 'zero.json', /it is a character device/);
  });

  it('a directory named like a fixture: exits 1 with one line', async () => {
    const { fixtures } = await project();
    await mkdir(join(fixtures, 'folder.json'));
    expectRefused(await ended(cli(['start', '--in-memory', '--fixtures', fixtures, '--port', '0'])), 'folder.json', /it is a directory/);
  });

  it('a fixture file over the 64 MiB limit: exits 1 with one line', async () => {
    const { fixtures } = await project();
    const handle = await open(join(fixtures, 'huge.json'), 'w');
    await handle.truncate(64 * 1024 * 1024 + 1); // sparse: no 64 MiB written
    await handle.close();
    expectRefused(await ended(cli(['start', '--in-memory', '--fixtures', fixtures, '--port', '0'])), 'huge.json', /over the 64 MiB limit/);
  });
});

describe('other readers', () => {
  it('scenario list with a named pipe in the scenarios directory: one line, exit 1', async () => {
    const { scenarios } = await project();
    await copyFile(join(DEFAULT_FIXTURES_DIR, '..', 'scenarios', 'verification.json'), join(scenarios, 'a.json'));
    mkfifo(join(scenarios, 'b.json'));
    expectRefused(await ended(cli(['scenario', 'list', '--dir', scenarios])), 'b.json', /named pipe/);
  });

  it('snapshot import of a named pipe: one line, exit 1', async () => {
    const { dir } = await project();
    mkfifo(join(dir, 'state.json'));
    expectRefused(await ended(cli(['snapshot', 'import', join(dir, 'state.json'), '--url', 'http://127.0.0.1:9'])), 'state.json', /named pipe/);
  });

  it('--data naming a named pipe: one line, exit 1', async () => {
    const { dir } = await project();
    mkfifo(join(dir, 'db.json'));
    expectRefused(await ended(cli(['start', '--data', join(dir, 'db.json'), '--port', '0'])), 'db.json', /not a regular file|named pipe/); // refused at open (open-store's stat)
  });
});

describe('sandbox start --watch, and SIGTERM', () => {
  it('a named pipe added to the fixtures directory, then two edits of another fixture: writes are answered, one line says why, SIGTERM exits 0', async () => {
    const { dir, fixtures, scenarios } = await project();
    const run = cli(['start', '--data', join(dir, 'db.json'), '--fixtures', fixtures, '--scenarios', scenarios, '--port', '0', '--json', '--watch']);
    const { url } = JSON.parse(await run.firstLine) as { url: string };
    await waitForStderr(run, 'watch: watching');
    mkfifo(join(fixtures, 'pipe.json'));
    const file = join(fixtures, 'aurora-tours.json');
    const fixture = JSON.parse(await readFile(file, 'utf8')) as { products: { title: string }[] };
    for (const title of ['First edit', 'Second edit']) {
      fixture.products[0]!.title = title;
      await writeFile(file, JSON.stringify(fixture, null, 2));
      await waitForStderr(run, 'fixtures not reloaded, keeping the last good state');
    }
    expect(run.output().stderr).toMatch(/pipe\.json: cannot read the file \(it is a named pipe \(FIFO\)/);
    const res = await fetch(`${url}/v1/forms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Answered', fields: [] }),
      signal: AbortSignal.timeout(OUTPUT_DEADLINE_MS),
    });
    expect(res.status).toBe(201);
    run.child.kill('SIGTERM');
    expect((await ended(run)).code).toBe(0);
  });

  it('ends on SIGTERM within the grace period even while a read is stuck (a named pipe for a journal)', async () => {
    const { dir } = await project();
    const db = join(dir, 'db.json');
    await writeFile(db, JSON.stringify({ schemaVersion: 1, seq: 0, collections: {} }));
    mkfifo(`${db}.journal`);
    // nothing is in flight to drain, and the stop's deadline is the point, not its length: the
    // shortest the options allow (the defaults, 3 s to drain and 5 s to flush, made this test a
    // wait of 8 s; docs/configuration.md, "Stopping")
    const run = cli(['start', '--data', db, '--port', '0', '--stop-timeout', '0', '--flush-grace', '500ms']);
    // the sandbox has the pipe open for reading once a non-blocking open for writing succeeds
    let writer: Awaited<ReturnType<typeof open>> | null = null;
    for (let i = 0; i < 1_000 && !writer && run.child.exitCode === null; i++) {
      writer = await open(`${db}.journal`, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => null);
      if (!writer) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (writer) {
      // stuck in a read that waits for data that never comes (one of its threads sleeps in pipe_read)
      await blockedInPipeRead(run.child.pid!);
      run.child.kill('SIGTERM');
      const end = await ended(run);
      await writer.close();
      expect(end.stderr, JSON.stringify({ code: end.code, signal: end.signal })).toMatch(/sandbox: .*ending the process now/);
    } else {
      // a start that refuses the pipe itself is just as good: it ended, with one line
      const end = await ended(run);
      expect(end.code).toBe(1);
    }
  });
});
