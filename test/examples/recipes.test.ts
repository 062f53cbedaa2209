import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The README's parallel-worker recipes, run as a user runs them (issue 24):
 * the documented command from the documented directory, against the package
 * as `npm install` builds it (dist/, which the examples import as
 * `travel-commerce-sandbox`). Each recipe has a worker file of about 100
 * /v1 requests (bookings, reads, webhooks to a local receiver) on a frozen
 * manual clock, and a file that asserts a 429 on purpose.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const VITEST_DIR = join(root, 'examples/parallel-workers');
const JEST_DIR = join(root, 'examples/jest-workers');

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

const newestMtime = (dir: string): number =>
  Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((e) => (e.isDirectory() ? newestMtime(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs)));

/** As `npm install` leaves it (the `prepare` script); bin/sandbox.js uses the same test of freshness. */
beforeAll(async () => {
  const stamp = join(root, 'dist/.stamp');
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= newestMtime(join(root, 'src'))) return;
  const built = await run(process.execPath, ['scripts/build.mjs'], root);
  expect(built.code, built.output).toBe(0);
}, 120_000);

/** The README's ```ts / ```js blocks that start with `// <file of an example>`, and that file. */
function readmeBlocks(): { file: string; block: string }[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const out: { file: string; block: string }[] = [];
  for (const [, body] of readme.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)) {
    const name = /^\/\/ ([\w.-]+\.(?:ts|js|mjs))\b/.exec(body!)?.[1];
    const file = name && [VITEST_DIR, JEST_DIR].map((dir) => join(dir, name)).find(existsSync);
    if (file) out.push({ file, block: body!.slice(body!.indexOf('\n') + 1) });
  }
  return out;
}

describe('the README recipes for parallel test workers', () => {
  it('show the example files exactly as they are', () => {
    const blocks = readmeBlocks();
    expect(blocks.map((b) => b.file.slice(root.length)).sort()).toEqual([
      'examples/jest-workers/jest.config.js',
      'examples/jest-workers/jest.global-setup.mjs',
      'examples/jest-workers/jest.global-teardown.mjs',
      'examples/jest-workers/jest.worker-setup.mjs',
      'examples/parallel-workers/rate-limits.test.ts',
      'examples/parallel-workers/sandbox.global-setup.ts',
      'examples/parallel-workers/sandbox.worker-setup.ts',
      'examples/parallel-workers/vitest.config.ts',
    ]);
    for (const { file, block } of blocks) expect(block, file).toBe(readFileSync(file, 'utf8'));
  });

  it('Vitest: `npx vitest run` in examples/parallel-workers passes', async () => {
    const { code, output } = await run('npx', ['vitest', 'run'], VITEST_DIR);
    expect(code, output).toBe(0);
    expect(output).toMatch(/Test Files\s+3 passed \(3\)/);
  }, 120_000);

  it('Jest: `NODE_OPTIONS=--experimental-vm-modules npx jest` in examples/jest-workers passes', async () => {
    const { code, output } = await run('npx', ['jest'], JEST_DIR, { NODE_OPTIONS: '--experimental-vm-modules' });
    expect(code, output).toBe(0);
    expect(output).toMatch(/Tests:\s+3 passed, 3 total/);
  }, 120_000);
});
