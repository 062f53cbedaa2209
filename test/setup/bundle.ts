import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The CLI the tests spawn runs dist/'s bundle when it is at least as new as src/ (bin/sandbox.js),
 * tsx over the sources otherwise: a start several times slower. After an edit of src/ the bundle
 * is stale, and every spawned CLI of a run paid that, until the docs test rebuilt it in the middle
 * of the run. The first spawn of a run rebuilds it once; the other worker waits.
 */
const ROOT = join(import.meta.dirname, '..', '..');

/** The newest modification time of a file, or of every file under a folder; 0 when the path is missing. */
const newestMtime = (path: string): number => {
  if (!existsSync(path)) return 0;
  if (!statSync(path).isDirectory()) return statSync(path).mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newestMtime(join(path, name))));
};

/**
 * bin/sandbox.js's own test of freshness: dist/ is at least as new as src/. `inputs` (paths from
 * the repository's root) widens it to what else the bundle is built from, for a copy that takes it.
 */
export function bundleIsFresh(inputs: readonly string[] = ['src']): boolean {
  const stamp = join(ROOT, 'dist/.stamp');
  return existsSync(stamp) && statSync(stamp).mtimeMs >= Math.max(...inputs.map((input) => newestMtime(join(ROOT, input))));
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

let checked = false;

/** Builds dist/ unless it is fresh; once per worker, under a lock in the run's scratch folder. */
export function ensureBundle(): void {
  if (checked) return;
  if (bundleIsFresh()) {
    checked = true;
    return;
  }
  const run = process.env.SANDBOX_TEST_RUN_DIR;
  const lock = run ? join(run, 'building-dist') : null;
  for (const end = Date.now() + 300_000; lock; sleep(200)) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > end) throw new Error(`dist/ is stale and another test file has been building it for 300 s (${lock})`);
    }
  }
  try {
    if (!bundleIsFresh()) execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'pipe' });
    checked = true;
  } catch (error) {
    const { stderr } = error as { stderr?: Buffer };
    throw new Error(`scripts/build.mjs failed: ${stderr?.toString().trim() ?? String(error)}`);
  } finally {
    if (lock) rmSync(lock, { recursive: true, force: true });
  }
}
