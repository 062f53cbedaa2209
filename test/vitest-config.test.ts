import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MOCKING_FILES } from '../vitest.config.ts';

const ROOT = join(import.meta.dirname, '..');

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return /\.test\.tsx?$/.test(entry.name) ? [relative(ROOT, full)] : [];
  });
}

/** A module mock in a shared module graph would leak into, or miss, the files around it. */
export const mocksAModule = (text: string): boolean => /\bvi\.(mock|doMock|unmock|doUnmock)\(/.test(text);

describe('vitest.config.ts', () => {
  it('runs every file that mocks a module in the isolated project', () => {
    const mocking = testFiles(join(ROOT, 'test')).filter((file) => file !== 'test/vitest-config.test.ts' && mocksAModule(readFileSync(join(ROOT, file), 'utf8')));
    expect(mocking.sort()).toEqual([...MOCKING_FILES].sort());
  });

  it('recognises a module mock', () => {
    expect(mocksAModule("vi.mock('node:fs', () => ({}))")).toBe(true);
    expect(mocksAModule("vi.doMock('node:v8')")).toBe(true);
    expect(mocksAModule('vi.fn()')).toBe(false);
  });
});
