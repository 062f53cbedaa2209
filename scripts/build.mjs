// Bundles the CLI and the sandbox into dist/ with esbuild (run by `npm install`
// through the `prepare` script, and by `npm run build`). One bundle loads in a
// fraction of the time that tsx needs to compile the sources and resolve every
// dependency file, which is most of `sandbox start`'s start-up time. Faker,
// the fixture generator and other heavy modules stay in lazily loaded chunks.
import { build } from 'esbuild';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts', prepare: 'src/fixtures/prepare-default.ts' },
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
  // ink imports react-devtools-core only when DEV=true; it is not a dependency.
  // Fastify requires ajv (through its compiler), fast-json-stringify's compiler
  // and pino only without custom compilers and with a logger; the sandbox has
  // neither (src/server.ts), so they stay out of the bundle instead of being
  // parsed on every start.
  external: ['react-devtools-core', '@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', 'pino'],
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
  // the key of the prepared database (src/fixtures/prepared.ts), computed once here
  define: { __SANDBOX_GENERATOR_FINGERPRINT__: JSON.stringify(generatorFingerprint(root)) },
  // CommonJS dependencies inside an ESM bundle still call require() for Node built-ins
  banner: { js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);" },
});
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
