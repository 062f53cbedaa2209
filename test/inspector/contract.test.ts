import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';

/**
 * The inspector is a pure consumer of the control-plane contract. Its sources
 * import nothing of the server (src/resources, src/storage, src/core, or anything else
 * outside src/inspector): only npm packages the project declares. And every route it
 * calls through the typed client (`api.GET('/__sandbox/…')`, …), or with fetch (the
 * stream), is a route of the served OpenAPI document under /__sandbox, with that method.
 * The typed client already makes a wrong path a type error; this makes it visible.
 */
const root = resolve(import.meta.dirname, '../..');
const INSPECTOR = join(root, 'src/inspector');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
const DECLARED = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return /\.(ts|tsx|mts|js|mjs|jsx|css)$/.test(entry.name) ? [path] : [];
  });
}

/** every module specifier of a file: static imports and re-exports, side-effect imports, dynamic import(), CSS @import */
function specifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
    /@import\s+(?:url\()?['"]([^'"]+)['"]/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.push(match[1]!);
  return found;
}

const packageOf = (specifier: string) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!);

const FILES = sources(INSPECTOR);
const CALL = /\bapi\.(GET|POST|PUT|PATCH|DELETE)\(\s*(['"`])([^'"`]*)\2/g;
const FETCH = /\bfetch\(\s*(['"`])([^'"`]*)\1/g;

describe('the inspector imports nothing of the server', () => {
  it('has sources to check', () => {
    expect(FILES.map((f) => relative(INSPECTOR, f))).toEqual(
      expect.arrayContaining(['App.tsx', 'api.ts', 'stream.ts', 'views/Requests.tsx', 'views/Data.tsx']),
    );
  });

  it.each(FILES.map((f) => [relative(root, f), f]))('%s: relative imports stay in src/inspector, the others are declared npm packages', (_name, file) => {
    const problems: string[] = [];
    for (const specifier of specifiers(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.') || specifier.startsWith('/')) {
        const target = resolve(dirname(file), specifier);
        if (relative(INSPECTOR, target).startsWith('..')) problems.push(`${specifier} leaves src/inspector (${relative(root, target)})`);
      } else if (specifier.startsWith('node:') || !DECLARED.has(packageOf(specifier))) {
        problems.push(`${specifier} is not a declared npm package`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('a file that would import the server fails the check (the check itself works)', () => {
    const bad = specifiers(
      `import { x } from '../../core/errors.ts';\nimport type { Row } from "../storage/types.ts";\nexport * from '../resources/x.ts';\nconst m = await import('../core/y.ts');`,
    );
    expect(bad).toEqual(['../../core/errors.ts', '../storage/types.ts', '../resources/x.ts', '../core/y.ts']);
    expect(relative(INSPECTOR, resolve(INSPECTOR, 'views', bad[0]!)).startsWith('..')).toBe(true);
  });
});

describe('the inspector calls only routes of the control-plane contract', () => {
  let sandbox: Sandbox;
  let document: { paths: Record<string, Record<string, unknown>> };
  beforeAll(async () => {
    sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual' });
    document = (await (await fetch(`${sandbox.url}/__sandbox/openapi.json`)).json()) as typeof document;
  });
  afterAll(() => sandbox?.stop());

  it('every literal path passed to api.GET/POST/PUT/PATCH/DELETE, and to fetch, is a /__sandbox route of the served OpenAPI document', () => {
    const calls: { file: string; method: string; path: string }[] = [];
    for (const file of FILES) {
      const text = readFileSync(file, 'utf8');
      const name = relative(root, file);
      for (const match of text.matchAll(CALL)) calls.push({ file: name, method: match[1]!.toLowerCase(), path: match[3]! });
      for (const match of text.matchAll(FETCH)) calls.push({ file: name, method: 'get', path: match[2]!.split('?')[0]! });
    }
    const served = Object.keys(document.paths);
    const problems = calls
      .filter(({ method, path }) => !path.startsWith('/__sandbox/') || !served.includes(path) || !(method in document.paths[path]!))
      .map(({ file, method, path }) => `${file}: ${method.toUpperCase()} ${path}`);
    expect(problems).toEqual([]);
    // what the inspector reads and changes, for the record (the views' calls)
    const used = [...new Set(calls.map((c) => `${c.method.toUpperCase()} ${c.path}`))].sort();
    expect(used).toEqual(
      expect.arrayContaining([
        'GET /__sandbox/workspaces',
        'GET /__sandbox/requests',
        'GET /__sandbox/requests/{requestId}',
        'DELETE /__sandbox/requests',
        'GET /__sandbox/stream',
        'GET /__sandbox/workspaces/{id}/collections/{collection}/{recordId}',
      ]),
    );
  });

  it('a path outside the document would be caught', () => {
    expect(Object.keys(document.paths)).not.toContain('/__sandbox/not-a-route');
    expect(Object.keys(document.paths).filter((p) => p.startsWith('/__sandbox/')).length).toBeGreaterThan(10);
  });
});
