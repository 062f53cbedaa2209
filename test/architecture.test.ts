import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The house rules of docs/architecture.md that a type check cannot see:
 * no import cycle in src (type imports count: they are arrows too), no
 * unchecked access to the store outside src/storage: rows are read and written
 * through each collection's typed handle (src/storage/collection.ts), and the
 * layering rules: which rooms of src may import which, storage's one door
 * (src/storage/index.ts) and the large-file tier's (src/storage/large-files/index.ts).
 * Each rule's failure names the import and says what to do instead.
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

/**
 * One import of a file of src: `to` is a path relative to src (`core/clock.ts`), or a package name;
 * `names` what it brings in (`*` for a namespace, `export *` or `import()`, `default` for a default).
 */
interface Import {
  from: string;
  line: number;
  to: string;
  names: readonly string[];
}

/** The names an import or re-export statement brings in (see Import). */
function namesOf(statement: string): string[] {
  if (/^\s*(?:(?:import|export)\s+(?:type\s+)?\*|[^\n]*\bimport\()/.test(statement)) return ['*'];
  const braces = /\{([^}]*)\}/.exec(statement);
  const names = braces
    ? braces[1]!
        .split(',')
        .map(
          (name) =>
            name
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0]!,
        )
        .filter(Boolean)
    : [];
  if (/^\s*import\s+(?:type\s+)?[A-Za-z_$][\w$]*\s*(?:,|from\b)/.test(statement)) names.push('default');
  return names;
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
    found.push({ from, line, to, names: namesOf(match[0]) });
  }
  return found;
}

/**
 * The layering rules of docs/architecture.md ("Layers"): for the files a rule covers, the
 * imports it refuses (by the path imported, and for the door by the names). Each says why in
 * the words a reader of a failure needs, and what to do instead (`fix`).
 */
interface LayerRule {
  name: string;
  covers: (file: string) => boolean;
  refuses: (to: string, names: readonly string[]) => boolean;
  fix: string;
}

const inside = (room: string) => (path: string) => path.startsWith(`${room}/`);
const isSource = (to: string) => /\.tsx?$/.test(to) && !to.startsWith('..');

const STORAGE_DOOR = 'storage/index.ts';
const TIER = 'storage/large-files';
const TIER_ENTRY = `${TIER}/index.ts`;

/**
 * The names the door re-exports from the files of created workspaces' copy-on-write views
 * (src/storage/overlay-*.ts, id-mask.ts): the workspaces room and the control plane's state
 * import and export use them; an area sees a created workspace only through the Store.
 */
function overlayNames(door: string): Set<string> {
  const names = new Set<string>();
  for (const match of door.matchAll(/^export\s*\{([^}]*)\}\s*from\s*'\.\/(?:overlay-[a-z-]+|id-mask)\.ts'/gm)) {
    for (const name of namesOf(`export {${match[1]}} from ''`)) names.add(name);
  }
  return names;
}
const OVERLAY_NAMES = overlayNames(readFileSync(join(src, STORAGE_DOOR), 'utf8'));

const LAYER_RULES: readonly LayerRule[] = [
  {
    name: 'areas know no control plane: src/resources/** imports nothing from src/control/',
    covers: inside('resources'),
    refuses: inside('control'),
    fix: 'move what both need below them (src/http/ or src/core/); the control plane imports the areas, never the other way',
  },
  {
    name: 'the webhook engine knows no area: src/webhooks/** imports nothing from src/resources/',
    covers: inside('webhooks'),
    refuses: inside('resources'),
    fix: 'let the area hand the engine what it needs through an interface the engine declares (as the subscriptions are read)',
  },
  {
    name: 'storage is the ground: src/storage/** imports only storage, node:*, lowdb and zod',
    covers: inside('storage'),
    refuses: (to) => (isSource(to) ? !inside('storage')(to) : !(to.startsWith('node:') || to === 'zod' || to === 'lowdb' || to.startsWith('lowdb/'))),
    fix: 'storage takes plain values: have the caller pass the value in, or move a helper both need into src/storage and export it through src/storage/index.ts',
  },
  {
    name: 'the core knows no HTTP and no area: src/core/** imports nothing from src/http/, src/control/, src/resources/ or src/server.ts',
    covers: inside('core'),
    refuses: (to) => inside('http')(to) || inside('control')(to) || inside('resources')(to) || to === 'server.ts',
    fix: 'pass what the core needs in as a value, or move the code up to the room that knows HTTP or the area',
  },
  {
    name: 'the context knows no server: src/context.ts imports nothing from src/http/ or src/server.ts',
    covers: (path) => path === 'context.ts',
    refuses: (to) => inside('http')(to) || to === 'server.ts',
    fix: 'declare the type the context needs where the context can see it (src/core/), and let the server fill it',
  },
  {
    name: 'HTTP (the route-table toolkit included) is below areas and the control plane: src/http/** imports nothing from src/resources/ or src/control/',
    covers: inside('http'),
    refuses: (to) => inside('resources')(to) || inside('control')(to),
    fix: 'take what HTTP needs as a parameter or a declared interface; areas and the control plane fill it',
  },
  {
    name: 'workspaces know no area and no control plane: src/workspaces/** imports nothing from src/resources/ or src/control/',
    covers: inside('workspaces'),
    refuses: (to) => inside('resources')(to) || inside('control')(to),
    fix: "have the area declare it on its collection (defineCollection: `copied`, `copiedSecrets`), as the workspaces room reads every collection's declaration",
  },
  {
    name: 'storage has one door: outside src/storage/, storage is imported from src/storage/index.ts only',
    covers: (path) => !inside('storage')(path),
    refuses: (to) => inside('storage')(to) && to !== STORAGE_DOOR,
    fix: 'import it from src/storage/index.ts; if the door does not export it yet, export it there (a general helper that storage does not use belongs outside storage)',
  },
  {
    name: 'the large-file tier has one entry: outside src/storage/large-files/, it is imported from its index.ts only',
    covers: (path) => !inside(TIER)(path),
    refuses: (to) => inside(TIER)(to) && to !== TIER_ENTRY,
    fix: "import it from src/storage/large-files/index.ts, exporting it there if the engine needs it; only the tier's own files import each other",
  },
  {
    name: "areas know no overlay: src/resources/** imports none of the copy-on-write views' internals",
    covers: inside('resources'),
    refuses: (to, names) =>
      /^storage\/(?:overlay-[a-z-]+|id-mask)\.ts$/.test(to) || (to === STORAGE_DOOR && names.some((name) => name === '*' || OVERLAY_NAMES.has(name))),
    fix: 'read a created workspace through the Store as any workspace; to drop what you keep for one that was created, reset or deleted, use workspaceReplacedBy(op) on the change feed',
  },
];

/** One line per offence: `src/file:line -> import: what to do instead`. */
function layerOffences(imports: readonly Import[], rules: readonly LayerRule[] = LAYER_RULES): string[] {
  const found: string[] = [];
  for (const rule of rules) {
    for (const i of imports) if (rule.covers(i.from) && rule.refuses(i.to, i.names)) found.push(`src/${i.from}:${i.line} -> ${i.to}: ${rule.fix}`);
  }
  return found;
}

function allImports(): Import[] {
  return sourceFiles(src).flatMap((path) => importsOf(path, readFileSync(path, 'utf8')));
}

/**
 * The import cycles among these imports: each strongly connected set of files (Tarjan), sorted.
 * The same reader as the layer rules, so type imports count (they are arrows too). It found the
 * same 1,924 edges madge did (madge, which it replaced, took 3.3 s of the fast tier for one graph).
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

  describe('layers', () => {
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
        "import { WEBHOOK_SUBSCRIPTIONS } from '../resources/webhooks/collections.ts';\nimport { ControlClient } from '../control/client.ts';\nimport { maskId, type OverlayRecord } from '../storage/index.ts';",
      ),
      // past the door: a file of storage, by a type import, a re-export and import()
      ...planted(
        'core/auth.ts',
        "import type { Store } from '../storage/types.ts';\nexport { OverlayStore } from '../storage/overlay-store.ts';\nconst tier = () => import('../storage/large-files/index.ts');",
      ),
      // the tier: its entry from the engine, its files from each other; another file of it from the engine
      ...planted(
        'storage/store-reads.ts',
        "import { PackedRows } from './large-files/index.ts';\nimport { walkEntries } from './large-files/packed-walks.ts';",
      ),
      ...planted('storage/large-files/packed-pages.ts', "import { keep } from './page-arena.ts';\nimport type { Row } from '../types.ts';"),
      // an area: the change feed's helper is fine; overlay names, a namespace import, or an overlay file are not
      ...planted(
        'resources/bookings/search-text.ts',
        "import { EAGER_BUILD_ROWS, workspaceReplacedBy, type Store } from '../../storage/index.ts';\nimport { isTombstone, type OverlayRecord } from '../../storage/index.ts';\nimport * as storage from '../../storage/index.ts';\nimport { OVERLAYS_COLLECTION } from '../../storage/overlay-records.ts';",
      ),
    ];
    const offences = layerOffences(imports);
    expect(offences.map((line) => line.slice(0, line.indexOf(': ')))).toEqual([
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
      'src/core/auth.ts:1 -> storage/types.ts',
      'src/core/auth.ts:2 -> storage/overlay-store.ts',
      'src/core/auth.ts:3 -> storage/large-files/index.ts',
      'src/resources/bookings/search-text.ts:4 -> storage/overlay-records.ts',
      'src/storage/store-reads.ts:2 -> storage/large-files/packed-walks.ts',
      'src/resources/bookings/search-text.ts:2 -> storage/index.ts',
      'src/resources/bookings/search-text.ts:3 -> storage/index.ts',
      'src/resources/bookings/search-text.ts:4 -> storage/overlay-records.ts',
    ]);
    // each says what to do instead
    expect(offences.find((line) => line.startsWith('src/core/auth.ts:1'))).toMatch(/: import it from src\/storage\/index\.ts/);
    expect(offences.find((line) => line.startsWith('src/storage/store-reads.ts:2'))).toMatch(/: import it from src\/storage\/large-files\/index\.ts/);
    expect(offences.find((line) => line.startsWith('src/resources/bookings/search-text.ts:2'))).toMatch(/workspaceReplacedBy\(op\)/);
  });
});
