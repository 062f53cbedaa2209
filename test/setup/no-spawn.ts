import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

/**
 * The fast tier's promise: no child process. Run before each of its
 * files (vitest.config.ts, SANDBOX_TEST_TIER=fast), it makes every way to start
 * one throw, so that a file that spawns, directly or through src/ (`exec`,
 * `start --detach`, an in-process esbuild), fails there with what to do,
 * rather than slowing the tier down unseen.
 */
const KEY = Symbol.for('travel-commerce-sandbox.no-spawn');
const slot = globalThis as { [KEY]?: true };
if (!slot[KEY]) {
  slot[KEY] = true;
  const methods = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;
  const writable = childProcess as unknown as Record<string, unknown>;
  for (const name of methods) {
    writable[name] = () => {
      throw new Error(`child_process.${name} in the fast tier: a file that starts a process belongs in SPAWNING_FILES (test/tiers.ts)`);
    };
  }
  syncBuiltinESMExports();
}
