// Bundles the CLI and the sandbox into dist/ with esbuild (run by `npm install`
// and `npm ci` in the repository through the `dependencies` script, which npm
// runs for the root project only, by `npm pack` (prepack) and `npm run build`).
// Not `prepare`: npm 11 warns every consumer about a dependency's `prepare`
// script, though it runs it only for git installs. One bundle loads in a
// fraction of the time that tsx needs to compile the sources and resolve every
// dependency file, which is most of `sandbox start`'s start-up time. Faker,
// the fixture generator and other heavy modules stay in lazily loaded chunks.
// The CLI is also bundled as one CommonJS script, dist/cli.cjs, with V8's code
// cache for this Node, which a start uses when it fits (bin/code-cache.js).
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildInspector } from './build-inspector.mjs';
import { generatorFingerprint } from './generator-fingerprint.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist`;

/**
 * zod exposes every error-message locale as `z.locales` (over 250 KB of the
 * bundle, parsed on every start). The sandbox only uses the English one zod
 * configures by default, so its locale index is replaced by one that exports
 * `en` alone.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => {
      if (!/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)) return undefined;
      return { path: join(dirname(args.importer), '../locales/index.js'), namespace: 'zod-locales' };
    });
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(join(dirname(args.path), 'en.js'))};`,
      resolveDir: dirname(args.path),
    }));
  },
};

// everything but the type declarations, which scripts/build-types.mjs makes (npm pack runs both)
await mkdir(outdir, { recursive: true });
for (const entry of await readdir(outdir)) {
  if (entry !== 'index.d.ts') await rm(`${outdir}/${entry}`, { recursive: true, force: true });
}
// ink imports react-devtools-core only when DEV=true; it is not a dependency.
// Fastify requires ajv (through its compiler), fast-json-stringify's compiler
// and pino only without custom compilers and with a logger; the sandbox has
// neither (src/server.ts), so they stay out of the bundle instead of being
// parsed on every start.
const external = ['react-devtools-core', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'pino'];
// the key of the prepared database (src/fixtures/prepared.ts), computed once here
const fingerprint = JSON.stringify(generatorFingerprint(root));

await build({
  absWorkingDir: root,
  // dashboard: the Ink dashboard as its own entry, for the CommonJS bundle below
  entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts', prepare: 'src/fixtures/prepare-default.ts', dashboard: 'src/dashboard/run.tsx' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  minify: true,
  sourcemap: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  legalComments: 'none',
  external,
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
  define: { __SANDBOX_GENERATOR_FINGERPRINT__: fingerprint },
  // CommonJS dependencies inside an ESM bundle still call require() for Node built-ins
  banner: { js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);" },
});
/**
 * The dashboard (Ink, React and yoga, whose modules await at their top level)
 * cannot be part of a CommonJS bundle, and a script compiled from V8's code
 * cache cannot import() on Node 20. So in dist/cli.cjs the dashboard module is
 * this stand-in, which loads the ES module entry dist/dashboard.js through
 * the import function bin/code-cache.js passes in (src/cli/dashboard.ts uses
 * openDashboard alone).
 */
const dashboardAsModule = {
  name: 'dashboard-as-module',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/dashboard\/run\.tsx$/ }, () => ({ path: 'dashboard', namespace: 'dashboard-as-module' }));
    builder.onLoad({ filter: /.*/, namespace: 'dashboard-as-module' }, () => ({
      contents: "export async function openDashboard(options) { return (await __sandboxImport('./dashboard.js')).openDashboard(options); }",
      loader: 'js',
    }));
  },
};

// The whole CLI as one CommonJS script, which bin/code-cache.js compiles with
// V8's code cache (made below); dist/cli.js stays for a Node without a cache.
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts'],
  outfile: `${outdir}/cli.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20.19',
  minify: true,
  sourcemap: 'linked',
  legalComments: 'none',
  external,
  logLevel: 'warning',
  plugins: [zodEnglishOnly, dashboardAsModule],
  // import.meta.url is the bundle's own URL (bin/code-cache.js passes it in)
  define: { __SANDBOX_GENERATOR_FINGERPRINT__: fingerprint, 'import.meta.url': '__sandboxImportMetaUrl' },
});

// The browser inspector (docs/inspector.md), served at /__sandbox/ui/ from dist/inspector.
await buildInspector(`${outdir}/inspector`);

// The stamp tells bin/sandbox.js the bundle is at least as new as src/.
await writeFile(`${outdir}/.stamp`, `${new Date().toISOString()}\n`);

// The default fixtures' database, generated once now rather than on the first
// start (src/fixtures/prepared.ts). Never fails the install: without it the
// first start generates and caches it.
try {
  const { prepareDefaultDatabase } = await import(`${outdir}/prepare.js`);
  await prepareDefaultDatabase(Date.now());
} catch (err) {
  console.warn(`note: the default database was not prepared (${err instanceof Error ? err.message : String(err)}); the first start will generate it`);
}

// V8's code cache of dist/cli.cjs for this Node (bin/code-cache.js): one start
// and its first requests, then the child writes what V8 compiled. Never fails
// the install: without a cache a start loads dist/cli.js.
try {
  await writeCodeCache();
} catch (err) {
  console.warn(`note: no code cache was written (${err instanceof Error ? err.message : String(err)}); starts load the ES module bundle`);
}

async function writeCodeCache() {
  const env = { ...process.env, SANDBOX_CODE_CACHE: 'write' };
  delete env.NODE_OPTIONS; // the cache serves a plain `node`, whose flags V8 checks
  const child = spawn(process.execPath, [`${root}bin/sandbox.js`, 'start', '--in-memory', '--port', '0', '--json'], {
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill(), 60_000);
  try {
    const line = await new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
      });
      exited.then((code) => reject(new Error(`the start exited with ${code}`)));
    });
    const { url, workspaces } = JSON.parse(line);
    const key = workspaces[0].keys[0].key;
    for (const path of ['/v1/products?limit=1', '/__sandbox/health']) {
      const res = await fetch(`${url}${path}`, { headers: path.startsWith('/v1') ? { authorization: `Bearer ${key}` } : {} });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    }
    child.stdin.end(); // the child writes the cache and exits
    const code = await exited;
    if (code !== 0) throw new Error(`the start exited with ${code} while writing`);
  } catch (err) {
    child.kill();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
