import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * No number of this project's own tracker in the code, the tests or the docs: a newcomer cannot
 * open the tracker, so a comment, test name or sentence says what the rule is for, or which part
 * of the API description it comes from, instead. An outside project's tracker may be cited, as
 * `owner/repo#N` or as a link (`https://github.com/owner/repo/issues/N`).
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const SCANNED = ['src', 'test', 'docs', 'README.md'];

/**
 * One regex, two shapes (the worked examples below show each):
 * - the word, singular or plural, in any case, then a number, with spaces or `#` between them,
 *   or a comment's line break (the word at a line's end, the number on the next line); but not
 *   inside a Markdown link's text, whose target names the tracker;
 * - an opening parenthesis, `#` and a number, the way a commit or PR title cites one.
 * The word's separators are spaces and `#` only, so a link's path, zod's `.issues[0]` and
 * `.issues.length`, and `owner/repo#N` are not matched.
 */
const WORD_THEN_NUMBER = String.raw`\bissues?[ \t]*(?:\r?\n[ \t]*(?:\*|//|#)?[ \t]*)?#?\d+(?![^\[\]\n]*\]\(https?:)`;
const HASH_IN_PARENTHESES = String.raw`\(#\d+`;
const TRACKER_NUMBER = new RegExp(`${WORD_THEN_NUMBER}|${HASH_IN_PARENTHESES}`, 'gi');

/** Every offence in one file's text, as `path:line: text`, the line being the one the offence starts on. */
function trackerNumbers(path: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(TRACKER_NUMBER)) {
    const start = text.lastIndexOf('\n', match.index) + 1;
    const end = text.indexOf('\n', match.index);
    const line = text.slice(0, match.index).split('\n').length;
    found.push(`${path}:${line}: ${text.slice(start, end === -1 ? undefined : end).trim()}`);
  }
  return found;
}

/** Every file of a scanned folder (README.md itself), `/`-separated from the root. Binary files (a NUL byte) hold no prose. */
function scannedFiles(): { path: string; text: string }[] {
  const walk = (path: string): string[] => {
    const entries = readdirSync(path, { withFileTypes: true });
    return entries.flatMap((entry) => (entry.isDirectory() ? walk(join(path, entry.name)) : [join(path, entry.name)]));
  };
  return SCANNED.flatMap((name) => (name.endsWith('.md') ? [join(root, name)] : walk(join(root, name))))
    .map((file) => ({ path: relative(root, file).split(sep).join('/'), bytes: readFileSync(file) }))
    .filter(({ bytes }) => !bytes.includes(0))
    .map(({ path, bytes }) => ({ path, text: bytes.toString('utf8') }));
}

describe('tracker numbers', () => {
  it('appear nowhere in src/, test/, docs/ or README.md: each line found says what its number stood for instead', () => {
    const files = scannedFiles();
    expect(files.length).toBeGreaterThan(500);
    expect(files.flatMap(({ path, text }) => trackerNumbers(path, text))).toEqual([]);
  });

  // The examples are written with `${I}` for the word, so that this file never holds what it forbids.
  const I = 'issue';
  const Is = 'Issue';

  it('are found in every shape a tracker number takes, with the path, the line and its text', () => {
    expect(trackerNumbers('a.ts', `// the rule (${I} 41)`)).toEqual([`a.ts:1: // the rule (${I} 41)`]);
    expect(trackerNumbers('b.md', `one\n${Is} #12 says so`)).toEqual([`b.md:2: ${Is} #12 says so`]);
    expect(trackerNumbers('c.ts', `/** see ${I}s 3 and 4 */`)).toHaveLength(1);
    expect(trackerNumbers('d.ts', `/** see ${I}s 3, 4 */`)).toHaveLength(1);
    expect(trackerNumbers('e.ts', ` * what the checks make first (${I}\n * 38, point 2): the schema`)).toEqual([`e.ts:1: * what the checks make first (${I}`]);
    expect(trackerNumbers('f.md', `fixed in ${I}12 and ${Is.toUpperCase()} 7`)).toHaveLength(2);
    expect(trackerNumbers('g.ts', `it('refuses a deep body (${'#'}23)', ...)`)).toEqual([`g.ts:1: it('refuses a deep body (${'#'}23)', ...)`]);
  });

  it("allows an outside tracker cited as owner/repo#N or by its link, and the word where no number follows it (zod's issues)", () => {
    expect(trackerNumbers('a.ts', '// commander points there (tj/commander.js#1498, tj/commander.js#1647)')).toEqual([]);
    expect(trackerNumbers('b.md', `Node's own bug: https://github.com/nodejs/node/${I}s/52142`)).toEqual([]);
    expect(trackerNumbers('c.md', `[nodejs/node ${I} 52142](https://github.com/nodejs/node/${I}s/52142)`)).toEqual([]);
    expect(trackerNumbers('d.ts', `const first = result.error.${I}s[0]; const count = error.${I}s.length;`)).toEqual([]);
    expect(trackerNumbers('e.ts', `// every ${I} has 3 parts; the ${I}: 2 keys`)).toEqual([]);
  });
});
