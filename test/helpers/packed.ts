import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const PACKAGE_FILES = ['package.json', 'package-lock.json', 'bin', 'src', 'scripts', 'fixtures', 'scenarios', 'docs', 'README.md', 'tsconfig.json', 'tsconfig.build.json'];

/**
 * `npm pack` of a copy of the repository, into `work`, as test/package/consumer.test.ts
 * does it (the copy, so the running suite's own dist/ is never rebuilt under it); returns
 * the tarball's path.
 */
export async function packTarball(work: string): Promise<string> {
  const copy = join(work, 'repo');
  mkdirSync(copy);
  for (const entry of PACKAGE_FILES) if (existsSync(join(root, entry))) cpSync(join(root, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
  await run(process.execPath, ['scripts/build.mjs'], { cwd: copy });
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: copy });
  return join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
}
