import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
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
