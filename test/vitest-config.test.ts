import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCKING_FILES } from '../vitest.config.ts';
import { LongFilesFirst } from './setup/sequencer.ts';
import { BROWSER_FILES, LONG_FILES, listed, SPAWNING_FILES } from './tiers.ts';

const ROOT = join(import.meta.dirname, '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return /\.test\.tsx?$/.test(entry.name) ? [relative(ROOT, full)] : [];
  });
}

/** A module mock in a shared module graph would leak into, or miss, the files around it. */
const mocksAModule = (text: string): boolean => /\bvi\.(mock|doMock|unmock|doUnmock)\(/.test(text);

/** What starts a process or a browser. */
const SPAWNS = /['"]node:child_process['"]|['"]playwright-core['"]/;

/**
 * The module of test/ or bench/ that `file` reaches, through its relative imports, and that
 * imports node:child_process or playwright-core; null if none. src/ is not followed: what it
 * spawns (`exec`, `start --detach`) is caught at run time in the fast tier (test/setup/no-spawn.ts).
 */
function spawnsThrough(file: string, seen = new Set<string>()): string | null {
  if (seen.has(file)) return null;
  seen.add(file);
  const text = readFileSync(join(ROOT, file), 'utf8');
  if (SPAWNS.test(text)) return file;
  for (const [, target] of text.matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const imported = relative(ROOT, resolve(ROOT, dirname(file), target!));
    if (imported.startsWith('src/') || !existsSync(join(ROOT, imported))) continue;
    const found = spawnsThrough(imported, seen);
    if (found) return found;
  }
  return null;
}

describe('the tiers (test/tiers.ts)', () => {
  const files = testFiles(join(ROOT, 'test'));

  it('list every file that starts a process or a browser, so that the fast tier has none', () => {
    const unlisted = files
      .filter((file) => !listed(file, SPAWNING_FILES))
      .flatMap((file) => {
        const through = spawnsThrough(file);
        return through ? [`${file} (through ${through}): add it to SPAWNING_FILES in test/tiers.ts`] : [];
      });
    expect(unlisted).toEqual([]);
  });

  it('name only files and folders that exist', () => {
    const missing = [...SPAWNING_FILES, ...BROWSER_FILES, ...Object.keys(LONG_FILES)].filter((entry) => !existsSync(join(ROOT, entry)));
    expect(missing).toEqual([]);
  });

  it('count the browser files among the spawning ones', () => {
    expect(files.filter((file) => listed(file, BROWSER_FILES) && !listed(file, SPAWNING_FILES))).toEqual([]);
  });

  it('find a spawn through a helper', () => {
    expect(spawnsThrough('test/chaos/kill9.test.ts')).toBe('test/helpers/cli.ts');
    expect(spawnsThrough('test/inspector/keys.test.ts')).toBe('test/inspector/browser.ts');
    expect(spawnsThrough('test/core/clock.test.ts')).toBeNull();
  });
});

describe('the order of the files (test/setup/sequencer.ts)', () => {
  it("starts the long files first, longest first, whatever vitest cached, then vitest's order", async () => {
    const cached: Record<string, number> = { 'shared:test/core/clock.test.ts': 90_000, 'shared:test/docs/docs.test.ts': 10 };
    const ctx = {
      config: { root: ROOT },
      cache: { getFileTestResults: (key: string) => (key in cached ? { duration: cached[key], failed: false } : undefined), getFileStats: () => ({ size: 1 }) },
    };
    const spec = (file: string, project = 'shared') => ({
      moduleId: join(ROOT, file),
      project: { name: project, config: { isolate: project === 'isolated', sequence: { groupOrder: 0 } } },
    });
    const files = [
      spec('test/core/clock.test.ts'),
      spec('test/storage/codec.test.ts'),
      spec('test/docs/docs.test.ts'),
      spec('test/fuzz/api.test.ts', 'isolated'),
      spec('test/chaos/kill9.test.ts'),
    ];
    const sorted = await new LongFilesFirst(ctx as never).sort(files as never);
    expect(sorted.map((s) => relative(ROOT, s.moduleId))).toEqual([
      'test/docs/docs.test.ts',
      'test/chaos/kill9.test.ts',
      'test/fuzz/api.test.ts',
      'test/core/clock.test.ts',
      'test/storage/codec.test.ts',
    ]);
  });
});

describe('vitest.config.ts', () => {
  it('runs every file that mocks a module in the isolated project', () => {
    const mocking = testFiles(join(ROOT, 'test')).filter(
      (file) => file !== 'test/vitest-config.test.ts' && mocksAModule(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(mocking.sort()).toEqual([...MOCKING_FILES].sort());
  });

  it('recognises a module mock', () => {
    expect(mocksAModule("vi.mock('node:fs', () => ({}))")).toBe(true);
    expect(mocksAModule("vi.doMock('node:v8')")).toBe(true);
    expect(mocksAModule('vi.fn()')).toBe(false);
  });
});
