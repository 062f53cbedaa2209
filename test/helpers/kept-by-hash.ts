import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A tool's output kept on disk, keyed by the sha256 of everything it is a function of: its input
 * text and the versions of the packages that make it. A rerun on the same input reads what the
 * tool wrote for it rather than loading the tool again, as vitest's module cache does for its
 * transforms (docs/testing.md, "Speed"). The folder is under node_modules/.cache, so a fresh
 * install empties it. Only for tools whose output is a function of those inputs alone.
 */
const NODE_MODULES = join(import.meta.dirname, '../../node_modules');
const KEPT = join(NODE_MODULES, '.cache/travel-commerce-sandbox-tests');

/** read off the installed package.json (some packages do not export it) */
const versionOf = (name: string) => (JSON.parse(readFileSync(join(NODE_MODULES, name, 'package.json'), 'utf8')) as { version: string }).version;

export async function keptByHash(name: string, packages: readonly string[], input: string, produce: () => Promise<string>): Promise<string> {
  const key = createHash('sha256')
    .update(`${packages.map((p) => `${p}@${versionOf(p)}`).join(' ')}\n`)
    .update(input)
    .digest('hex');
  const dir = join(KEPT, name);
  const file = join(dir, key);
  if (existsSync(file)) return readFileSync(file, 'utf8');
  const output = await produce();
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${file}.${process.pid}`, output); // whole or absent: another checkout sharing node_modules may read it meanwhile
  renameSync(`${file}.${process.pid}`, file);
  return output;
}
