import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { allBlocks } from '../docs/extract.ts';
import { bundleIsFresh } from '../setup/bundle.ts';
import { cachedEntry, fileHash, hashOf, unmodifiedSince } from '../helpers/test-cache.ts';

/**
 * The package as an integrator gets it, shared by the consumer test
 * and the CI journeys: a copy of the repository packed with
 * `npm pack` (so the running suite's own dist/ is never rebuilt under it), and
 * a fresh project that installs the tarball (installedProject).
 */
export const run = promisify(execFile);
export const root = join(import.meta.dirname, '..', '..');
const PACKAGE_FILES = [
  'package.json',
  'package-lock.json',
  'bin',
  'src',
  'scripts',
  'fixtures',
  'scenarios',
  'docs',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
];

/** What the bundle is built from. */
const BUNDLE_INPUTS = ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json'];

/** What scripts/build-types.mjs makes dist/index.d.ts from (the lock file holds dts-bundle-generator's and typescript's versions). */
const DECLARATION_INPUTS = ['src', 'scripts/build-types.mjs', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];

/** An installed project made longer ago is installed again: it holds what the registry served then. */
const INSTALL_MAX_AGE_MS = 24 * 3_600_000;

/** The version of a package this repository has installed: a fresh project gets the same. */
export const version = (name: string): string =>
  (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * One tarball per test run, in the run's scratch folder (test/setup/global.ts), packed
 * by the first file that asks: the three package files packed the same repository three times,
 * about 10 s of CPU each. The other files, in this worker or the other, wait for it.
 */
function sharedTarball(dir: string): Promise<string> {
  return once(dir, 'tarball', () => packInto(dir));
}

/** The run's own name for a cached tarball (a hard link in `dir`): what the journeys install is a file of their run. */
function linkedInto(dir: string, tarball: string): string {
  const own = join(dir, tarball.slice(tarball.lastIndexOf('/') + 1));
  try {
    linkSync(tarball, own);
  } catch {
    copyFileSync(tarball, own);
  }
  return own;
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
 * Packs a copy of the repository, with its declarations; returns the tarball's path in `work`.
 * The tarball is kept in the cache (test/helpers/test-cache.ts), keyed by the sha256 of every file it is packed
 * from: a rerun on the same sources skips the copy, the declarations and `npm pack`.
 */
async function packInto(work: string): Promise<string> {
  // the bundle is built from files hashed here (BUNDLE_INPUTS), the same bytes from the same
  // inputs but for dist/.stamp's time: whether the copy takes it or builds it, the key is the same
  const key = hashOf(root, PACKAGE_FILES, ['tarball 2', process.version]); // npm comes with node
  const entry = await cachedEntry('tarball', key, (dir) => packCopy(work, dir, bundleIsFresh(BUNDLE_INPUTS)));
  return linkedInto(work, join(entry, readdirSync(entry).find((name) => name.endsWith('.tgz'))!));
}

/**
 * Packs a copy of the repository into `into`. The copy takes the repository's bundle when it is
 * newer than everything it is built from (the run's spawns use it; test/setup/bundle.ts rebuilds
 * it when src/ is newer): scripts/build.mjs made the same files again in the copy, 3 s of CPU.
 */
async function packCopy(work: string, into: string, bundleFresh: boolean): Promise<void> {
  const copy = join(work, 'repo');
  rmSync(copy, { recursive: true, force: true });
  mkdirSync(copy);
  for (const entry of PACKAGE_FILES) if (existsSync(join(root, entry))) cpSync(join(root, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  if (bundleFresh) {
    cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true });
  } else {
    await run(process.execPath, ['scripts/build.mjs'], { cwd: copy });
  }
  await declarations(copy);
  await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], { cwd: copy });
  rmSync(copy, { recursive: true, force: true });
}

/**
 * dist/index.d.ts in `copy`: scripts/build-types.mjs, about 11 s of CPU, or the one it made
 * before from the same inputs (a change of the docs alone packs again, with the same declarations).
 */
async function declarations(copy: string): Promise<void> {
  const entry = await cachedEntry('declarations', hashOf(root, DECLARATION_INPUTS, ['declarations 1']), async (dir) => {
    await run(process.execPath, ['scripts/build-types.mjs'], { cwd: copy });
    copyFileSync(join(copy, 'dist', 'index.d.ts'), join(dir, 'index.d.ts'));
  });
  mkdirSync(join(copy, 'dist'), { recursive: true });
  copyFileSync(join(entry, 'index.d.ts'), join(copy, 'dist', 'index.d.ts'));
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
 * The tarball installed in a fresh project, as `work/project`. One `npm install` per test run,
 * not one per package file (a project of its own each cost about 14 s of CPU). Every file gets its own copy of that project, its files hard-linked (made in a fraction of
 * a second), so that what one file writes (its data, the CLI's code cache, the prepared database
 * in node_modules/.cache) the others never see; no file writes into an installed file, which
 * would reach every copy. The installed project is kept in the cache, keyed by the tarball's
 * sha256 and what is installed with it, for a day (what the registry served); a rerun copies it
 * without an install. It is never used itself, and each run checks that no file of it changed
 * since it was made (an in-place write through a copy's hard link), else installs it again.
 */
export async function installedProject(work: string): Promise<Installed> {
  const project = join(work, 'project');
  const shared = process.env.SANDBOX_TEST_RUN_DIR;
  const dir = shared ? join(shared, 'packed') : work;
  const tarball = shared ? await sharedTarball(dir) : await packInto(work);
  const installed = shared ? await once(dir, 'installed', () => installedEntry(tarball)) : await installedEntry(tarball);
  await copyLinked(join(installed, 'project'), project);
  return { tarball, project, warnings: readFileSync(join(installed, 'warnings.txt'), 'utf8') };
}

/** The cache entry (test/helpers/test-cache.ts) that holds `project/`, the tarball installed, and `warnings.txt`, what its install printed. */
function installedEntry(tarball: string): Promise<string> {
  const runners = TEST_RUNNERS.map((name) => `${name}@${version(name)}`);
  const key = hashOf(root, [], ['installed 1', fileHash(tarball), ...projectDependencies(), ...runners, process.version, process.platform, process.arch]);
  return cachedEntry(
    'installed',
    key,
    async (entry) => {
      writeFileSync(join(entry, 'warnings.txt'), await installFresh(join(entry, 'project'), tarball, runners));
    },
    { maxAgeMs: INSTALL_MAX_AGE_MS, intact: (entry, madeAt) => unmodifiedSince(join(entry, 'project'), madeAt) },
  );
}

/**
 * `npm init -y`, `npm pkg set type=module`, `npm install` of the tarball and projectDependencies(),
 * then of the test runners, in a new `project`; returns what the first install printed on stderr
 * (the runners' own dependencies have install scripts, which npm warns about).
 */
async function installFresh(project: string, tarball: string, runners: string[]): Promise<string> {
  mkdirSync(project);
  await run('npm', ['init', '-y'], { cwd: project });
  await run('npm', ['pkg', 'set', 'type=module'], { cwd: project });
  const npmInstall = (specs: string[]) => run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...specs], { cwd: project });
  const installed = await npmInstall([tarball, ...projectDependencies()]);
  await npmInstall(runners);
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
