// Bundles the CLI and the sandbox into dist/ with esbuild (run by `npm install`
// through the `prepare` script, and by `npm run build`). One bundle loads in a
// fraction of the time that tsx needs to compile the sources and resolve every
// dependency file, which is most of `sandbox start`'s start-up time. Faker,
// the fixture generator and other heavy modules stay in lazily loaded chunks.
import { build } from 'esbuild';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = `${root}dist`;

// everything but the type declarations, which scripts/build-types.mjs makes (npm pack runs both)
await mkdir(outdir, { recursive: true });
for (const entry of await readdir(outdir)) {
  if (entry !== 'index.d.ts') await rm(`${outdir}/${entry}`, { recursive: true, force: true });
}
await build({
  absWorkingDir: root,
  entryPoints: { cli: 'src/cli/main.ts', index: 'src/index.ts' },
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
  // ink imports react-devtools-core only when DEV=true; it is not a dependency
  external: ['react-devtools-core'],
  logLevel: 'warning',
  // CommonJS dependencies inside an ESM bundle still call require() for Node built-ins
  banner: { js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);" },
});
// The stamp tells bin/sandbox.js the bundle is at least as new as src/.
await writeFile(`${outdir}/.stamp`, `${new Date().toISOString()}\n`);
