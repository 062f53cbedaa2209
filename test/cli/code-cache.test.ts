import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * bin/code-cache.js: the CLI as one CommonJS script compiled with
 * V8's code cache when the build made one for this Node, else null, so that
 * bin/sandbox.js loads the ES module bundle. Each case runs in a plain `node`
 * (no flags: a process with flags of its own never looks for a cache) over a
 * toy package whose dist/cli.cjs reports what the loader passed in.
 */
const run = promisify(execFile);
const LOADER = pathToFileURL(join(import.meta.dirname, '..', '..', 'bin', 'code-cache.js')).href;

const TOY_BUNDLE = `
exports.main = () => 'main ran';
exports.seen = { importMetaUrl: __sandboxImportMetaUrl, dirname: __dirname, requireWorks: typeof require('node:path').join === 'function' };
exports.importDashboard = () => __sandboxImport('./dashboard.js').then((m) => m.name);
`;

let root: string;

beforeEach(() => {
  root = `${mkdtempSync(join(tmpdir(), 'tcs-code-cache-'))}/`;
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'dist', 'cli.cjs'), TOY_BUNDLE);
  writeFileSync(join(root, 'dist', 'dashboard.js'), "export const name = 'the dashboard module';\n");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Runs `body` as an ES module in a fresh plain node, with the loader's exports in scope; returns its JSON output. */
async function inNode(body: string, env: Record<string, string | undefined> = {}): Promise<Record<string, unknown>> {
  const script = join(root, 'probe.mjs');
  writeFileSync(
    script,
    `import * as loader from ${JSON.stringify(LOADER)};\nconst root = ${JSON.stringify(root)};\nconst out = {};\n${body}\nconsole.log(JSON.stringify(out));\n`,
  );
  const { NODE_OPTIONS: _ignored, ...base } = process.env;
  const { stdout } = await run(process.execPath, [script], { env: { ...base, ...env } });
  return JSON.parse(stdout) as Record<string, unknown>;
}

const KEY = `node-${process.version}-${process.platform}-${process.arch}`;

describe('bin/code-cache.js', () => {
  it('writes a cache named for this runtime, and a later process loads the bundle from it with what the bundle needs', async () => {
    const written = await inNode(
      `const { cli, write } = loader.loadCliForCaching(root); out.main = cli.main(); out.written = write(); out.key = loader.runtimeKey();`,
    );
    expect(written).toEqual({ main: 'main ran', written: true, key: KEY });

    const loaded = await inNode(
      `const { cli, writeLater } = loader.loadCli(root); out.main = cli.main(); out.seen = cli.seen; out.dashboard = await cli.importDashboard(); out.writeLater = writeLater;`,
    );
    expect(loaded).toEqual({
      main: 'main ran',
      seen: { importMetaUrl: pathToFileURL(join(root, 'dist', 'cli.cjs')).href, dirname: `${root}dist`, requireWorks: true },
      dashboard: 'the dashboard module',
      writeLater: null, // the cache fitted: nothing to write
    });
  });

  it('without a cache for this runtime, compiles the bundle and writes one later, which the next process uses', async () => {
    const first = await inNode(`const { cli, writeLater } = loader.loadCli(root); out.main = cli.main(); out.written = writeLater();`);
    expect(first).toEqual({ main: 'main ran', written: true });
    expect(readdirSync(join(root, 'dist'))).toContain(`cli.cjs.${KEY}.cache`);
    expect(await inNode(`out.writeLater = loader.loadCli(root).writeLater;`)).toEqual({ writeLater: null });
  });

  it('returns null (the ES modules) with SANDBOX_CODE_CACHE=off and under NODE_OPTIONS', async () => {
    await inNode(`loader.loadCliForCaching(root).write();`);
    expect(await inNode(`out.loaded = loader.loadCli(root);`, { SANDBOX_CODE_CACHE: 'off' })).toEqual({ loaded: null });
    expect(await inNode(`out.loaded = loader.loadCli(root);`, { NODE_OPTIONS: '--max-old-space-size=512' })).toEqual({ loaded: null });
  });

  it('returns null when the cache is there but not the bundle', async () => {
    await inNode(`loader.loadCliForCaching(root).write();`);
    rmSync(join(root, 'dist', 'cli.cjs'));
    expect(await inNode(`out.loaded = loader.loadCli(root);`)).toEqual({ loaded: null });
  });

  it('still runs the bundle when V8 refuses the cache (here: not a cache at all), and writes a good one later', async () => {
    writeFileSync(join(root, 'dist', `cli.cjs.${KEY}.cache`), 'not a V8 code cache');
    expect(await inNode(`const { cli, writeLater } = loader.loadCli(root); out.main = cli.main(); out.written = writeLater();`)).toEqual({
      main: 'main ran',
      written: true,
    });
    expect(await inNode(`out.writeLater = loader.loadCli(root).writeLater;`)).toEqual({ writeLater: null });
  });

  it('writes nothing, and says so, where it cannot write; a start then loads the ES modules', async () => {
    // a directory where the cache file would go: neither written over nor read
    mkdirSync(join(root, 'dist', `cli.cjs.${KEY}.cache`));
    expect(await inNode(`out.written = loader.loadCliForCaching(root).write(); out.loaded = loader.loadCli(root);`)).toEqual({ written: false, loaded: null });
    expect(readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
