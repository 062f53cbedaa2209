// Bundles the browser inspector (src/inspector; docs/inspector.md)
// into dist/inspector/: index.html, assets/main.js and assets/main.css. Run by
// scripts/build.mjs and, when the sources are newer than the bundle, by the
// inspector tests (test/inspector/bundle.ts). Everything is
// served by the sandbox itself: no CDN, nothing fetched at run time.
import { build } from 'esbuild';
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** @param {string} dir @returns {Promise<string[]>} the files under `dir`, relative to it */
async function filesUnder(dir) {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => `${e.parentPath ?? e.path}/${e.name}`.slice(dir.length + 1));
}

/**
 * Builds into a staging folder, then renames each file into `outdir`: a page served meanwhile
 * (the test suite rebuilds a stale bundle while other test files load the page) gets the old file
 * or the new one, never none. Emptying `outdir` first made those pages fail while esbuild ran.
 * @param {string} [outdir] where to write (dist/inspector by default)
 */
export async function buildInspector(outdir = `${root}dist/inspector`) {
  const staging = `${outdir}.staging-${process.pid}-${Date.now()}`;
  await mkdir(`${staging}/assets`, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/inspector/main.tsx' },
    outdir: `${staging}/assets`,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome120', 'firefox120', 'safari17'],
    minify: true,
    jsx: 'automatic',
    legalComments: 'none',
    logLevel: 'warning',
    tsconfig: 'src/inspector/tsconfig.json',
    define: { 'process.env.NODE_ENV': '"production"' },
    metafile: true,
  });
  await copyFile(`${root}src/inspector/index.html`, `${staging}/index.html`);
  const fresh = await filesUnder(staging);
  await mkdir(`${outdir}/assets`, { recursive: true });
  for (const file of fresh) await rename(`${staging}/${file}`, `${outdir}/${file}`);
  for (const file of await filesUnder(outdir)) if (!fresh.includes(file)) await rm(`${outdir}/${file}`, { force: true });
  await rm(staging, { recursive: true, force: true });
  return result.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildInspector();
