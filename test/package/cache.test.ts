import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cachedEntry, hashOf, unmodifiedSince } from '../helpers/test-cache.ts';

/**
 * The package files' cache (test/helpers/test-cache.ts): what a rerun may take from it instead of
 * packing and installing again, and when it must not.
 */
const work = mkdtempSync(join(tmpdir(), 'tcs-package-cache-'));
const cache = join(work, 'cache');

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the package files' cache", () => {
  it("keys by every file's path and bytes: an edit, a rename or a new file is another key", () => {
    const src = join(work, 'src');
    mkdirSync(join(src, 'a'), { recursive: true });
    writeFileSync(join(src, 'a', 'one.ts'), 'export const one = 1;\n');
    const key = () => hashOf(work, ['src'], ['v1']);
    const first = key();
    expect(key()).toBe(first);
    writeFileSync(join(src, 'a', 'one.ts'), 'export const one = 2;\n');
    const edited = key();
    expect(edited).not.toBe(first);
    execFileSync('mv', [join(src, 'a', 'one.ts'), join(src, 'a', 'uno.ts')]);
    expect(key()).not.toBe(edited);
    writeFileSync(join(src, 'two.ts'), '');
    expect(new Set([first, edited, key(), hashOf(work, ['src'], ['v2'])]).size).toBe(4);
  });

  it('makes an entry once and hands it back on the next run; two runs that make it at once get one entry', async () => {
    let makes = 0;
    const make = async (dir: string) => {
      makes++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      writeFileSync(join(dir, 'product.txt'), `made ${makes}`);
    };
    const [a, b] = await Promise.all([cachedEntry('thing', 'k1', make, { dir: cache }), cachedEntry('thing', 'k1', make, { dir: cache })]);
    expect(a).toBe(b);
    expect(await cachedEntry('thing', 'k1', make, { dir: cache })).toBe(a);
    expect(makes).toBe(2); // both made it; the second rename lost, and nothing else was made
    expect(readFileSync(join(a, 'product.txt'), 'utf8')).toMatch(/^made [12]$/);
    expect(readdirSync(cache).filter((name) => name.startsWith('tmp-'))).toEqual([]);
  });

  it('makes an entry again when it is too old or no longer intact', async () => {
    let makes = 0;
    const make = async (dir: string) => void writeFileSync(join(dir, 'n.txt'), String(++makes));
    const entry = await cachedEntry('aged', 'k', make, { dir: cache });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(readFileSync(join(await cachedEntry('aged', 'k', make, { dir: cache, maxAgeMs: 1 }), 'n.txt'), 'utf8')).toBe('2');
    expect(readFileSync(join(await cachedEntry('aged', 'k', make, { dir: cache, intact: () => false }), 'n.txt'), 'utf8')).toBe('3');
    expect(readFileSync(join(await cachedEntry('aged', 'k', make, { dir: cache, intact: () => true }), 'n.txt'), 'utf8')).toBe('3');
    expect(entry).toBe(join(cache, 'aged-k'));
  });

  it('sees a file written in place through a hard-linked copy, and not a file the copy made itself', async () => {
    const entry = await cachedEntry(
      'linked',
      'k',
      async (dir) => {
        mkdirSync(join(dir, 'project', 'node_modules', 'pkg'), { recursive: true });
        writeFileSync(join(dir, 'project', 'node_modules', 'pkg', 'index.js'), 'export {};\n');
      },
      { dir: cache },
    );
    const madeAt = Number(readFileSync(join(entry, 'made.txt'), 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const copy = join(work, 'copy');
    execFileSync('cp', ['-al', join(entry, 'project'), copy]);
    writeFileSync(join(copy, 'node_modules', 'pkg', 'cli.cache'), 'a file of the copy');
    mkdirSync(join(copy, 'node_modules', '.cache'));
    expect(unmodifiedSince(join(entry, 'project'), madeAt)).toBe(true);
    appendFileSync(join(copy, 'node_modules', 'pkg', 'index.js'), '// written in place\n');
    expect(unmodifiedSince(join(entry, 'project'), madeAt)).toBe(false);
  });
});
