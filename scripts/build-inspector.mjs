// Bundles the browser inspector (src/inspector, issue 25; docs/inspector.md)
// into dist/inspector/: index.html, assets/main.js and assets/main.css. Run by
// scripts/build.mjs and, when the sources are newer than the bundle, by the
// test suite's global setup (test/inspector/global-setup.ts). Everything is
// served by the sandbox itself: no CDN, nothing fetched at run time.
import { build } from 'esbuild';
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** @param {string} [outdir] where to write (dist/inspector by default) */
export async function buildInspector(outdir = `${root}dist/inspector`) {
  await rm(outdir, { recursive: true, force: true });
  await mkdir(`${outdir}/assets`, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'src/inspector/main.tsx' },
    outdir: `${outdir}/assets`,
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
  await copyFile(`${root}src/inspector/index.html`, `${outdir}/index.html`);
  return result.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildInspector();
