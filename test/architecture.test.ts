import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The house rules of docs/architecture.md that a type check cannot see:
 * no import cycle in src (type imports count: they are arrows too), and no
 * unchecked access to the store outside src/storage (issue 17): rows are read
 * and written through each collection's typed handle (src/storage/collection.ts).
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');

type Madge = (path: string, config: Record<string, unknown>) => Promise<{ circular(): string[][] }>;
const madge = createRequire(import.meta.url)('madge') as Madge;

/** What may only be written inside src/storage, each with the reason a reader gets. */
const FORBIDDEN: readonly { pattern: RegExp; why: string }[] = [
  { pattern: /\bas\s+unknown\s+as\b/, why: 'a double cast (`as unknown as`)' },
  { pattern: /\.\s*(?:get|list)\s*<[^>(]*>\s*\(/, why: 'an unchecked store generic (`.get<T>(` / `.list<T>(`)' },
  { pattern: /\btype\s*:\s*['"](?:put|delete)['"]/, why: "a hand-built store op (`{type: 'put' | 'delete'}`)" },
];

/** One line per offence: `path:line: why`. */
function uncheckedStoreAccess(files: readonly { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    text.split('\n').forEach((line, i) => {
      for (const { pattern, why } of FORBIDDEN) if (pattern.test(line)) found.push(`${path}:${i + 1}: ${why}`);
    });
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe('architecture', () => {
  it('has no import cycle in src (madge, type imports included)', async () => {
    const graph = await madge(src, { fileExtensions: ['ts', 'tsx'], tsConfig: join(root, 'tsconfig.json') });
    expect(graph.circular()).toEqual([]);
  }, 60_000);

  it('touches the store through typed collection handles only: no double cast, unchecked generic or hand-built op outside src/storage', () => {
    const files = sourceFiles(src)
      .filter((path) => !relative(src, path).startsWith(`storage${sep}`))
      .map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
    expect(files.length).toBeGreaterThan(100);
    expect(uncheckedStoreAccess(files)).toEqual([]);
  });

  it('the check finds each kind of offence (so the test above can fail)', () => {
    const planted = [
      "const row = ctx.store.get<Booking>('bookings', ws, id);",
      'const rows = this.store\n      .list<Person>(PEOPLE.name, ws);',
      'await store.commit([{ type: \'put\', collection: C, workspaceId: ws, row: record as unknown as Row }]);',
      "ops.push({ type: 'delete', collection: C, workspaceId: ws, id });",
    ].join('\n');
    expect(uncheckedStoreAccess([{ path: 'planted.ts', text: planted }])).toEqual([
      'planted.ts:1: an unchecked store generic (`.get<T>(` / `.list<T>(`)',
      'planted.ts:3: an unchecked store generic (`.get<T>(` / `.list<T>(`)',
      'planted.ts:4: a double cast (`as unknown as`)',
      "planted.ts:4: a hand-built store op (`{type: 'put' | 'delete'}`)",
      "planted.ts:5: a hand-built store op (`{type: 'put' | 'delete'}`)",
    ]);
  });
});
