import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

/**
 * The package's entry (src/index.ts) loads the server only when createSandbox is called:
 * a test worker that imports the package for `workerSandbox` or `ControlClient`, as every worker of
 * the README's recipes does, must not load fastify and the whole sandbox with it (0.25 s of CPU per
 * worker to 0.12 s for dist/index.js, more in a test runner's module loader). Followed here: the
 * imports that load a module when the entry loads (not `import type`, not `import()`).
 */
const src = fileURLToPath(new URL('../src/', import.meta.url));

// `import x from '…'`, `import '…'`, `export … from '…'`, not their `type` forms
const LOADING = /^\s*(?:import|export)\s+(?!type\b)[^;]*?\bfrom\s*['"]([^'"\s]+)['"]|^\s*import\s*['"]([^'"\s]+)['"]/gm;

function loadedWith(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file; file = queue.pop()) {
    if (modules.has(file)) continue;
    modules.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(LOADING)) {
      const spec = (match[1] ?? match[2])!;
      if (!spec.startsWith('.')) {
        if (!spec.startsWith('node:')) packages.add(spec.split('/')[0]!.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
        continue;
      }
      const target = resolve(dirname(file), spec);
      if (existsSync(target) && target.endsWith('.ts')) queue.push(target);
    }
  }
  return { modules, packages };
}

it('the package entry loads neither the server nor fastify until createSandbox is called', () => {
  const { modules, packages } = loadedWith(join(src, 'index.ts'));
  const names = [...modules].map((m) => relative(src, m));
  expect(names).toContain('control/worker-sandbox.ts'); // the walk does follow the entry's imports
  // the assembly of a sandbox, but its error class (SandboxError, a small module of its own)
  expect(names.filter((m) => ['sandbox.ts', 'server.ts'].includes(m) || (m.startsWith('assembly/') && m !== 'assembly/sandbox-error.ts'))).toEqual([]);
  expect([...packages].filter((p) => p === 'fastify' || p.startsWith('@fastify/'))).toEqual([]);
});
