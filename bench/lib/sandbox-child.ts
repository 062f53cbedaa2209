import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstJsonLine, startChild, type Child } from './children.ts';
import { assertLocal } from './ports.ts';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SANDBOX_BIN = join(ROOT, 'bin/sandbox.js');
export const BARE_SERVER = join(ROOT, 'bench/bare-server.mjs');
/** the live fixture key with full access (fixtures/, README) */
export const FULL_KEY = 'tcs_live_aurora_full_0000000000000000000001';
export const AUTH_HEADERS = { authorization: `Bearer ${FULL_KEY}` };

interface StartSummary {
  url: string;
  workspaces: { keys: { key: string }[] }[];
}

export interface RunningSandbox {
  child: Child;
  origin: string;
}

/**
 * `sandbox start --json` as a child. `nodeArgs` go before the bin (e.g.
 * --cpu-prof); `args` after `start`.
 */
export async function startSandbox(args: readonly string[], nodeArgs: readonly string[] = []): Promise<RunningSandbox> {
  const child = startChild(process.execPath, [...nodeArgs, SANDBOX_BIN, 'start', '--json', ...args]);
  const summary = await firstJsonLine<StartSummary>(child, 120_000);
  const keys = summary.workspaces.flatMap((w) => w.keys.map((k) => k.key));
  if (!keys.includes(FULL_KEY)) throw new Error(`the sandbox did not print the fixture key ${FULL_KEY}`);
  return { child, origin: assertLocal(summary.url) };
}

export async function startBareServer(bodyFile: string, port = 0): Promise<{ child: Child; origin: string }> {
  const child = startChild(process.execPath, [BARE_SERVER, '--body', bodyFile, '--port', String(port)]);
  const { url } = await firstJsonLine<{ url: string }>(child, 30_000);
  return { child, origin: assertLocal(url) };
}

/**
 * How bin/sandbox.js will run: the esbuild bundle in dist/ when it is at least
 * as new as every file in src/, else TypeScript through tsx (slower to start).
 * The bundle is dist/cli.cjs from V8's code cache when the build made one for
 * this Node (bin/code-cache.js: a child with no flags of its own, as the bench
 * spawns them), else the ES modules of dist/cli.js. Same rules as the shim, so
 * the report says which one was measured.
 */
export function cliMode(): 'dist bundle, code cache' | 'dist bundle' | 'tsx (sources)' {
  if (process.env.SANDBOX_FROM_SOURCE) return 'tsx (sources)';
  try {
    if (statSync(join(ROOT, 'dist/.stamp')).mtimeMs < newestMtime(join(ROOT, 'src'))) return 'tsx (sources)';
  } catch {
    return 'tsx (sources)';
  }
  const cache = join(ROOT, `dist/cli.cjs.node-${process.version}-${process.platform}-${process.arch}.cache`);
  return process.env.SANDBOX_CODE_CACHE !== 'off' && !process.env.NODE_OPTIONS && existsSync(cache) ? 'dist bundle, code cache' : 'dist bundle';
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}
