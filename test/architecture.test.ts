import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The house rules of docs/architecture.md that a type check cannot see:
 * no import cycle in src (type imports count: they are arrows too), no
 * unchecked access to the store outside src/storage (issue 17): rows are read
 * and written through each collection's typed handle (src/storage/collection.ts),
 * and the layering rules (issue 41): which rooms of src may import which.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const src = join(root, 'src');

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

/** One import of a file of src: `to` is a path relative to src (`core/clock.ts`), or a package name. */
interface Import {
  from: string;
  line: number;
  to: string;
}

// statements that start a line: imports and re-exports (`import type` and `export ... from`
// included, over several lines), bare `import '...'`; and `import('...')` anywhere
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s*['"]([^'"\s]+)['"]|^\s*import\s*['"]([^'"\s]+)['"]|\bimport\(\s*['"]([^'"\s]+)['"]\s*\)/gm;

/** Every import of a file, relative ones resolved to src-relative paths (`/` separated). */
function importsOf(path: string, text: string): Import[] {
  const from = relative(src, path).split(sep).join('/');
  const found: Import[] = [];
  for (const match of text.matchAll(IMPORT)) {
    // an import named in a comment (`() => import('./control.ts')` in a doc comment) is none
    const lineStart = text.lastIndexOf('\n', match.index) + 1;
    if (/^\s*(?:\/\/|\/\*|\*)/.test(text.slice(lineStart, match.index + 1))) continue;
    const spec = (match[1] ?? match[2] ?? match[3])!;
    const line = text.slice(0, match.index + match[0].length).split('\n').length;
    const to = spec.startsWith('.')
      ? relative(src, resolve(dirname(path), spec))
          .split(sep)
          .join('/')
      : spec;
    found.push({ from, line, to });
  }
  return found;
}

/**
 * The layering rules of docs/architecture.md ("Layers"): for the files a rule covers, the
 * imports it refuses. Each says why in the words a reader of a failure needs.
 */
interface LayerRule {
  name: string;
  covers: (file: string) => boolean;
  refuses: (to: string) => boolean;
}

const inside = (room: string) => (path: string) => path.startsWith(`${room}/`);
const isSource = (to: string) => /\.tsx?$/.test(to) && !to.startsWith('..');

const LAYER_RULES: readonly LayerRule[] = [
  {
    name: 'areas know no control plane: src/resources/** imports nothing from src/control/',
    covers: inside('resources'),
    refuses: inside('control'),
  },
  {
    name: 'the webhook engine knows no area: src/webhooks/** imports nothing from src/resources/',
    covers: inside('webhooks'),
    refuses: inside('resources'),
  },
  {
    name: 'storage is the ground: src/storage/** imports only storage, node:*, lowdb and zod',
    covers: inside('storage'),
    refuses: (to) => (isSource(to) ? !inside('storage')(to) : !(to.startsWith('node:') || to === 'zod' || to === 'lowdb' || to.startsWith('lowdb/'))),
  },
  {
    name: 'the core knows no HTTP and no area: src/core/** imports nothing from src/http/, src/control/, src/resources/ or src/server.ts',
    covers: inside('core'),
    refuses: (to) => inside('http')(to) || inside('control')(to) || inside('resources')(to) || to === 'server.ts',
  },
  {
    name: 'the context knows no server: src/context.ts imports nothing from src/http/ or src/server.ts',
    covers: (path) => path === 'context.ts',
    refuses: (to) => inside('http')(to) || to === 'server.ts',
  },
  {
    name: 'HTTP (the route-table toolkit included) is below areas and the control plane: src/http/** imports nothing from src/resources/ or src/control/',
    covers: inside('http'),
    refuses: (to) => inside('resources')(to) || inside('control')(to),
  },
  {
    name: 'workspaces know no area and no control plane: src/workspaces/** imports nothing from src/resources/ or src/control/',
    covers: inside('workspaces'),
    refuses: (to) => inside('resources')(to) || inside('control')(to),
  },
];

/** One line per offence: `rule: file:line -> import`. */
function layerOffences(imports: readonly Import[], rules: readonly LayerRule[] = LAYER_RULES): string[] {
  const found: string[] = [];
  for (const rule of rules) {
    for (const i of imports) if (rule.covers(i.from) && rule.refuses(i.to)) found.push(`${rule.name}: src/${i.from}:${i.line} -> ${i.to}`);
  }
  return found;
}

function allImports(): Import[] {
  return sourceFiles(src).flatMap((path) => importsOf(path, readFileSync(path, 'utf8')));
}

/**
 * The import cycles among these imports: each strongly connected set of files (Tarjan), sorted.
 * The same reader as the layer rules, so type imports count (they are arrows too). It found the
 * same 1,924 edges madge did (issue 41 replaced madge: 3.3 s of the fast tier for one graph).
 */
function importCycles(imports: readonly Import[]): string[][] {
  const edges = new Map<string, string[]>();
  for (const { from, to } of imports) if (isSource(to)) edges.set(from, [...(edges.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of edges.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const set: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      set.push(member);
    } while (member !== file);
    if (set.length > 1 || edges.get(file)?.includes(file)) cycles.push(set.sort());
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return cycles.sort();
}

/** The imports of a planted file, as if it were src/<from> with the given text. */
const planted = (from: string, text: string) => importsOf(join(src, from), text);

describe('architecture', () => {
  it('has no import cycle in src (type imports, re-exports and import() included)', () => {
    expect(importCycles(allImports())).toEqual([]);
  });

  it('the cycle check finds a cycle made by a type import alone, and no cycle in a chain (so the test above can fail)', () => {
    const chain = [
      ...planted('a.ts', "import type { B } from './b.ts';\nexport interface A { b: B }"),
      ...planted('b.ts', "import { helper } from './c.ts';\nexport const b = helper;"),
      ...planted('d.ts', "import { b } from './b.ts';"),
    ];
    expect(importCycles(chain)).toEqual([]);
    const cycle = [...chain, ...planted('c.ts', "export const helper = (a?: import('./a.ts').A) => a;\nconst later = () => import('./a.ts');")];
    expect(importCycles(cycle)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });

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
      "await store.commit([{ type: 'put', collection: C, workspaceId: ws, row: record as unknown as Row }]);",
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

  describe('layers (issue 41)', () => {
    const imports = allImports();
    it('reads the imports of src, type imports and re-exports included', () => {
      expect(imports.length).toBeGreaterThan(1000);
      expect(imports.some((i) => i.from === 'context.ts' && i.to === 'core/clock.ts')).toBe(true);
    });
    for (const rule of LAYER_RULES) {
      it(rule.name, () => {
        expect(layerOffences(imports, [rule])).toEqual([]);
      });
    }
  });

  it('the layer check finds each kind of offence (so the tests above can fail)', () => {
    const imports = [
      ...planted('resources/people/control.ts', "import { serve } from '../../control/contract.ts';"),
      ...planted('webhooks/dispatcher.ts', "import type { WebhookSubscriptionRecord } from '../resources/webhooks/schemas.ts';"),
      ...planted('storage/types.ts', "import { libraryWording } from '../core/option-advice.ts';\nimport { z } from 'zod';\nimport { x } from 'fastify';"),
      ...planted('core/self-guard.ts', "import {\n  CONTROL_PREFIX,\n} from '../http/paths.ts';"),
      ...planted('context.ts', "export type { RouteCatalog } from './http/openapi.ts';\nconst m = await import('./server.ts');"),
      ...planted('http/route-table/serve.ts', "import type { SandboxContext } from '../../context.ts';\nimport { x } from '../../control/app.ts';"),
      ...planted(
        'workspaces/templates.ts',
        "import { WEBHOOK_SUBSCRIPTIONS } from '../resources/webhooks/collections.ts';\nimport { ControlClient } from '../control/client.ts';\nimport { x } from '../storage/id-mask.ts';",
      ),
    ];
    expect(layerOffences(imports).map((line) => line.slice(line.lastIndexOf(': src/') + 2))).toEqual([
      'src/resources/people/control.ts:1 -> control/contract.ts',
      'src/webhooks/dispatcher.ts:1 -> resources/webhooks/schemas.ts',
      'src/storage/types.ts:1 -> core/option-advice.ts',
      'src/storage/types.ts:3 -> fastify',
      'src/core/self-guard.ts:3 -> http/paths.ts',
      'src/context.ts:1 -> http/openapi.ts',
      'src/context.ts:2 -> server.ts',
      'src/http/route-table/serve.ts:2 -> control/app.ts',
      'src/workspaces/templates.ts:1 -> resources/webhooks/collections.ts',
      'src/workspaces/templates.ts:2 -> control/client.ts',
    ]);
  });
});
