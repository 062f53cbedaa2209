import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedFile } from '../helpers/test-cache.ts';
import { installedProject, run, tsExamples as examples } from './packed.ts';

/**
 * The consumer test: the package as an integrator gets it. It packs
 * a copy of the repository (so the running suite's own dist/ is never rebuilt
 * under it), installs the tarball into a fresh project with typescript and
 * @types/node, type-checks every TypeScript example of the README and docs/
 * under `module: nodenext`, `strict`, `skipLibCheck: false`, runs the README's
 * programmatic example, and starts `npx sandbox start --port 0 --json`.
 */
/** tsc's incremental state of the examples' check, kept between runs (test/helpers/test-cache.ts) */
const BUILD_INFO = 'consumer-examples.tsbuildinfo';

let work: string;
let project: string;
let tarball: string;
/** what `npm install <tarball>` printed on stderr, at npm's default log level (warnings included) */
let installWarnings: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tcs-consumer-'));
  // typescript, @types/node and what the examples import installed with it (projectDependencies)
  ({ tarball, project, warnings: installWarnings } = await installedProject(work));
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

// tsc over the whole declaration tree and a real start: minutes on a busy 2-core machine, not seconds
describe('the packed package in a fresh project', { timeout: 300_000 }, () => {
  it('holds the bundle, its declarations and the data files, and no TypeScript sources', async () => {
    const { stdout } = await run('tar', ['tzf', tarball]);
    const files = stdout.trim().split('\n');
    expect(files).toContain('package/dist/index.d.ts');
    expect(files).toContain('package/dist/index.js');
    expect(files).toContain('package/bin/sandbox.js');
    expect(files).toContain('package/fixtures/aurora-tours.json');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
  });

  it('carries no machine-specific V8 code cache: a start writes one for its own Node', async () => {
    const { stdout } = await run('tar', ['tzf', tarball]);
    expect(
      stdout
        .trim()
        .split('\n')
        .filter((f) => f.endsWith('.cache')),
    ).toEqual([]);
  });

  it('has no install-time script, so installing it warns about none', () => {
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'travel-commerce-sandbox', 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    // what npm counts as install scripts of a dependency (npm 11 lists them in an install-scripts warning)
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([]);
    expect(installWarnings).not.toMatch(/prepare|install-scripts|install scripts/i);
  });

  it("installs only packages whose engines accept Node 20.19 (the project's overrides do not reach a consumer)", () => {
    const refused: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (!entry.isDirectory() || entry.name === '.bin' || entry.name === '.cache') continue;
        const path = join(dir, entry.name);
        if (entry.name.startsWith('@')) {
          walk(path);
          continue;
        }
        const manifest = join(path, 'package.json');
        if (existsSync(manifest)) {
          const { name, version, engines } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string; engines?: { node?: string } };
          if (engines?.node && !semver.satisfies('20.19.0', engines.node)) refused.push(`${name}@${version} (node ${engines.node})`);
        }
        if (existsSync(join(path, 'node_modules'))) walk(join(path, 'node_modules'));
      }
    };
    walk(join(project, 'node_modules'));
    expect(refused).toEqual([]);
  });

  it('type-checks every TypeScript example of the README and docs with nodenext, strict, skipLibCheck false', async () => {
    const all = examples();
    expect(all.length).toBeGreaterThanOrEqual(2);
    for (const example of all) writeFileSync(join(project, example.name), example.code);
    // incremental: tsc keeps each file's hash and diagnostics in the build info, and a
    // rerun rechecks only what changed and what depends on it; unchanged, the check takes a
    // fraction of its 10 s of CPU. The build info of the last passing check is kept in the cache.
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
          incremental: true,
          tsBuildInfoFile: BUILD_INFO,
        },
        include: ['*.mts'],
      }),
    );
    cachedFile.restore(BUILD_INFO, join(project, BUILD_INFO));
    const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', '.'], { cwd: project }).then(
      () => ({ ok: true, out: '' }),
      (err: { stdout: string }) => ({ ok: false, out: err.stdout }),
    );
    expect(result.out).toBe('');
    expect(result.ok).toBe(true);
    cachedFile.save(join(project, BUILD_INFO), BUILD_INFO);
  });

  it("runs the README's programmatic example", async () => {
    const example = examples().find((e) => e.code.includes('await sandbox.reset()'))!;
    // the example has no type annotations, so it is valid JavaScript as written
    writeFileSync(join(project, 'programmatic.mjs'), `${example.code}\nconsole.log('example done');\n`);
    const { stdout } = await run(process.execPath, ['programmatic.mjs'], { cwd: project });
    expect(stdout).toContain('example done');
  });

  it('starts with `npx sandbox start --port 0 --json` and serves the fixture key', async () => {
    await firstStart();
  });

  it("writes the CLI's code cache on first use, as the package ships none", async () => {
    // the project's first start (its copy of the installed project is pristine: packed.ts) found no
    // cache, compiled without one and writes one when it exits; one start serves both tests
    const { cachesBefore } = await firstStart();
    expect(cachesBefore).toEqual([]);
    for (let i = 0; i < 400 && codeCaches().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(codeCaches()).toEqual([`cli.cjs.node-${process.version}-${process.platform}-${process.arch}.cache`]);
  });
});

/** The V8 code caches in the installed package's dist/. */
const codeCaches = () => readdirSync(join(project, 'node_modules', 'travel-commerce-sandbox', 'dist')).filter((f) => f.endsWith('.cache'));

let first: Promise<{ cachesBefore: string[] }> | undefined;
/** The project's first `npx sandbox start` (startServeAndStop), once, with the code caches there were before it. */
function firstStart(): Promise<{ cachesBefore: string[] }> {
  first ??= (async () => {
    const cachesBefore = codeCaches();
    await startServeAndStop();
    return { cachesBefore };
  })();
  return first;
}

/** `npx sandbox start` in the project, one authenticated request, then SIGTERM to its process group. */
async function startServeAndStop(): Promise<void> {
  // its own process group: npx does not pass SIGTERM on to the sandbox it runs
  const child = spawn('npx', ['sandbox', 'start', '--port', '0', '--json', '--in-memory'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      child.on('exit', (code) => reject(new Error(`sandbox exited with ${code} before its ready line`)));
    });
    const ready = JSON.parse(line) as { url: string; workspaces: { keys: { key: string }[] }[] };
    const res = await fetch(`${ready.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${ready.workspaces[0]!.keys[0]!.key}` } });
    expect(res.status).toBe(200);
  } finally {
    process.kill(-child.pid!, 'SIGTERM');
  }
}
