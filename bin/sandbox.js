#!/usr/bin/env node
// Tiny shim: load the CLI, nothing else. It runs the esbuild bundle in dist/
// (made by `npm install`) when that is at least as new as every file in src/,
// and always in an installed package (it has no src/); otherwise, or with
// SANDBOX_FROM_SOURCE=1, tsx (a dev dependency) runs the TypeScript sources.
// The bundle is dist/cli.cjs with its V8 code cache when there is one for this
// Node (./code-cache.js), else the ES modules of dist/cli.js.
import { existsSync, readdirSync, statSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

// Node 22.1+ keeps compiled code on disk between runs (a no-op before, and
// when NODE_DISABLE_COMPILE_CACHE is set); compiling the bundle is a good
// part of every start (docs/benchmarks.md).
module.enableCompileCache?.();

const root = fileURLToPath(new URL('..', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  if (process.env.SANDBOX_FROM_SOURCE) return false;
  if (!existsSync(`${root}src`)) return true; // an installed package ships the bundle only
  try {
    return statSync(`${root}dist/.stamp`).mtimeMs >= newestMtime(`${root}src`);
  } catch {
    return false;
  }
}

// after this long, a start has compiled what starts and first requests use (bin/code-cache.js)
const CACHE_AFTER_MS = 2000;

let cli;
if (bundleIsFresh()) {
  // the CommonJS bundle and its V8 code cache when it has one for this runtime, else the ES module bundle
  const { loadCli, loadCliForCaching } = await import('./code-cache.js');
  if (process.env.SANDBOX_CODE_CACHE === 'write') {
    // scripts/build.mjs: run as asked (a start), and write the cache when stdin ends
    const caching = loadCliForCaching(root);
    process.stdin.on('end', () => process.exit(caching.write() ? 0 : 3)).resume();
    cli = caching.cli;
  } else {
    const loaded = loadCli(root);
    cli = loaded?.cli ?? (await import('../dist/cli.js'));
    // no cache fitted this Node: write one once this start has run a little (its modules and first
    // requests compiled), or when it exits if sooner, with the V8 flags a start changes at their
    // defaults, as a new process has them
    if (loaded?.writeLater) {
      let written = false;
      const write = () => {
        if (written) return;
        written = true;
        cli.withDefaultV8Flags(loaded.writeLater);
      };
      setTimeout(write, CACHE_AFTER_MS).unref();
      process.once('exit', write);
    }
  }
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../src/cli/main.ts');
}
await cli.main(process.argv);
