import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The package as an integrator gets it (issue 14), shared by the consumer test
 * and the CI journeys (issue 36): a copy of the repository packed with
 * `npm pack` (so the running suite's own dist/ is never rebuilt under it), and
 * a fresh project that installs the tarball.
 */
export const run = promisify(execFile);
export const root = join(import.meta.dirname, '..', '..');
const PACKAGE_FILES = ['package.json', 'package-lock.json', 'bin', 'src', 'scripts', 'fixtures', 'scenarios', 'docs', 'README.md', 'tsconfig.json', 'tsconfig.build.json'];

/** The version of a package this repository has installed: a fresh project gets the same. */
export const version = (name: string): string => (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * Packs a copy of the repository into `work`; returns the tarball's path.
 * `types: false` leaves out the declarations (dts-bundle-generator, the
 * slowest step), for a test that runs JavaScript only.
 */
export async function packTarball(work: string, { types = true }: { types?: boolean } = {}): Promise<string> {
  const shared = process.env.SANDBOX_TEST_RUN_DIR;
  return shared ? sharedTarball(join(shared, 'packed')) : packInto(work, { types });
}

/**
 * One tarball per test run (issue 41), in the run's scratch folder (test/setup/global.ts), packed
 * by the first file that asks, with its declarations (a file that needs none ignores them): the
 * three package files packed the same repository three times, about 10 s of CPU each. The other
 * files, in this worker or the other, wait for it.
 */
async function sharedTarball(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const done = join(dir, 'tarball.txt');
  const failed = join(dir, 'failed.txt');
  let mine = false;
  try {
    mkdirSync(join(dir, 'packing'));
    mine = true;
  } catch {
    /* another file packs it */
  }
  if (mine) {
    try {
      writeFileSync(done, await packInto(dir, { types: true }));
    } catch (error) {
      writeFileSync(failed, String(error));
      throw error;
    }
  }
  for (const end = Date.now() + 600_000; !existsSync(done); await new Promise((resolve) => setTimeout(resolve, 200))) {
    if (existsSync(failed)) throw new Error(`packing the repository failed in another test file: ${readFileSync(failed, 'utf8')}`);
    if (Date.now() > end) throw new Error(`no tarball in ${dir} after 600 s`);
  }
  return readFileSync(done, 'utf8');
}

async function packInto(work: string, { types }: { types: boolean }): Promise<string> {
  const copy = join(work, 'repo');
  mkdirSync(copy);
  for (const entry of PACKAGE_FILES) if (existsSync(join(root, entry))) cpSync(join(root, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  await run(process.execPath, ['scripts/build.mjs'], { cwd: copy });
  if (types) await run(process.execPath, ['scripts/build-types.mjs'], { cwd: copy });
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: copy });
  return join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
}

/** `npm install` of the tarball and `deps` in `project` (which has its package.json); returns what npm printed on stderr. */
export async function installInto(project: string, tarball: string, deps: string[]): Promise<string> {
  const installed = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, ...deps], { cwd: project });
  return installed.stderr;
}
