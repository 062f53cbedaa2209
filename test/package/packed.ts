import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { allBlocks } from '../docs/extract.ts';
import { bundleIsFresh } from '../setup/bundle.ts';

/**
 * The package as an integrator gets it (issue 14), shared by the consumer test
 * and the CI journeys (issue 36): a copy of the repository packed with
 * `npm pack` (so the running suite's own dist/ is never rebuilt under it), and
 * a fresh project that installs the tarball (installedProject).
 */
export const run = promisify(execFile);
export const root = join(import.meta.dirname, '..', '..');
const PACKAGE_FILES = ['package.json', 'package-lock.json', 'bin', 'src', 'scripts', 'fixtures', 'scenarios', 'docs', 'README.md', 'tsconfig.json', 'tsconfig.build.json'];

/** What the bundle is built from. */
const BUNDLE_INPUTS = ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];

/** The version of a package this repository has installed: a fresh project gets the same. */
export const version = (name: string): string => (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * One tarball per test run (issue 41), in the run's scratch folder (test/setup/global.ts), packed
 * by the first file that asks: the three package files packed the same repository three times,
 * about 10 s of CPU each. The other files, in this worker or the other, wait for it.
 */
function sharedTarball(dir: string): Promise<string> {
  return once(dir, 'tarball', () => packInto(dir));
}

/**
 * `make()` done by the first of the run's files that asks for `name` (a folder made in `dir`
 * is the lock); its result is written to `dir`, where the other files, in this worker or the
 * other, wait for it.
 */
async function once(dir: string, name: string, make: () => Promise<string>): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const done = join(dir, `${name}.txt`);
  const failed = join(dir, `${name}-failed.txt`);
  let mine = false;
  try {
    mkdirSync(join(dir, `${name}.lock`));
    mine = true;
  } catch {
    /* another file makes it */
  }
  if (mine) {
    try {
      const result = await make();
      writeFileSync(`${done}.tmp`, result);
      renameSync(`${done}.tmp`, done); // whole when the others see it
    } catch (error) {
      writeFileSync(failed, String(error));
      throw error;
    }
  }
  for (const end = Date.now() + 600_000; !existsSync(done); await new Promise((resolve) => setTimeout(resolve, 200))) {
    if (existsSync(failed)) throw new Error(`${name}: it failed in another test file: ${readFileSync(failed, 'utf8')}`);
    if (Date.now() > end) throw new Error(`no ${name} in ${dir} after 600 s`);
  }
  return readFileSync(done, 'utf8');
}

/**
 * Packs a copy of the repository, with its declarations, into `work`; returns the tarball's path.
 * The copy takes the repository's bundle when it is newer than everything it is built from (the
 * run's spawns use it; test/setup/bundle.ts rebuilds it when src/ is newer): scripts/build.mjs
 * made the same files again in the copy, 3 s of CPU.
 */
async function packInto(work: string): Promise<string> {
  const copy = join(work, 'repo');
  mkdirSync(copy);
  for (const entry of PACKAGE_FILES) if (existsSync(join(root, entry))) cpSync(join(root, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  if (bundleIsFresh(BUNDLE_INPUTS)) {
    cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
  } else {
    await run(process.execPath, ['scripts/build.mjs'], { cwd: copy });
  }
  await run(process.execPath, ['scripts/build-types.mjs'], { cwd: copy });
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: copy });
  return join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
}

/**
 * What the package files install with the tarball: typescript, @types/node and the packages the
 * docs' TypeScript examples import (consumer), at the versions this repository uses.
 */
export function projectDependencies(): string[] {
  const names = new Set(['typescript', '@types/node']);
  for (const { code } of tsExamples()) {
    for (const m of code.matchAll(/from '([^'./][^']*)'/g)) {
      const spec = m[1]!;
      if (spec.startsWith('node:') || spec === 'travel-commerce-sandbox') continue;
      names.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return [...names].map((name) => `${name}@${version(name)}`);
}

/** The test runners of the README's recipes (ci-journeys), installed after the tarball as a user adds them. */
const TEST_RUNNERS = ['vitest', 'jest'];

/** ```ts blocks of the README and docs/*.md, each a whole module a user would paste (the docs tests' one extractor). */
export function tsExamples(): { name: string; code: string }[] {
  return allBlocks()
    .filter((b) => b.lang === 'ts' && !b.directive.skip)
    .map((b) => ({ name: `${b.file.replace(/\W+/g, '-')}-${b.line}.mts`, code: b.code }));
}

export interface Installed {
  /** the packed tarball */
  tarball: string;
  /** a fresh project (`npm init -y`, `npm pkg set type=module`, as the README says) with the tarball, projectDependencies() and the recipes' test runners installed, this file's own */
  project: string;
  /** what `npm install` of the tarball and projectDependencies() printed on stderr, at npm's default log level (warnings included) */
  warnings: string;
}

/**
 * The tarball installed in a fresh project, as `work/project`. One `npm install` per test run
 * (issue 41), in the run's scratch folder: each package file installed the tarball into a
 * project of its own, about 14 s of CPU each. Every file gets its own copy of that project, its
 * files hard-linked (made in a fraction of a second), so that what one file writes (its data,
 * the CLI's code cache, the prepared database in node_modules/.cache) the others never see; no
 * file writes into an installed file, which would reach every copy.
 */
export async function installedProject(work: string): Promise<Installed> {
  const project = join(work, 'project');
  const shared = process.env.SANDBOX_TEST_RUN_DIR;
  if (!shared) {
    const tarball = await packInto(work);
    return { tarball, project, warnings: await installFresh(project, tarball) };
  }
  const dir = join(shared, 'packed');
  const tarball = await sharedTarball(dir);
  const installed = join(dir, 'project');
  const warnings = await once(dir, 'installed', () => installFresh(installed, tarball));
  await copyLinked(installed, project);
  return { tarball, project, warnings };
}

/**
 * `npm init -y`, `npm pkg set type=module`, `npm install` of the tarball and projectDependencies(),
 * then of the test runners, in a new `project`; returns what the first install printed on stderr
 * (the runners' own dependencies have install scripts, which npm warns about).
 */
async function installFresh(project: string, tarball: string): Promise<string> {
  mkdirSync(project);
  await run('npm', ['init', '-y'], { cwd: project });
  await run('npm', ['pkg', 'set', 'type=module'], { cwd: project });
  const npmInstall = (specs: string[]) => run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...specs], { cwd: project });
  const installed = await npmInstall([tarball, ...projectDependencies()]);
  await npmInstall(TEST_RUNNERS.map((name) => `${name}@${version(name)}`));
  return installed.stderr;
}

/** A copy of `from` at `to` whose files are hard links (directories and symbolic links are its own). */
async function copyLinked(from: string, to: string): Promise<void> {
  try {
    await run('cp', ['-al', from, to]);
  } catch {
    // a cp without -l: a plain copy
    rmSync(to, { recursive: true, force: true });
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
  }
}
