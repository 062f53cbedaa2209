#!/usr/bin/env node
// Tiny shim: load the CLI, nothing else. It runs the esbuild bundle in dist/
// (made by `npm install`) when that is at least as new as every file in src/,
// and always in an installed package (it has no src/); otherwise, or with
// SANDBOX_FROM_SOURCE=1, tsx (a dev dependency) runs the TypeScript sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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

let cli;
if (bundleIsFresh()) {
  cli = await import('../dist/cli.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../src/cli/main.ts');
}
await cli.main(process.argv);
