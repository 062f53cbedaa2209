// Bundles the public type declarations into dist/index.d.ts (run by `npm pack`
// through the `prepack` script, and by `npm run build:types`). One file, with
// every type the public API names inlined and only the dependencies' own
// packages (fastify, zod, node) imported, so a consumer's compiler never sees
// our .ts sources. It takes about 20 s, so `npm install` skips it.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
mkdirSync(`${root}dist`, { recursive: true });
execFileSync(
  process.execPath,
  [
    `${root}node_modules/dts-bundle-generator/dist/bin/dts-bundle-generator.js`,
    '--project',
    'tsconfig.build.json',
    '--out-file',
    'dist/index.d.ts',
    '--no-check',
    '--export-referenced-types=false',
    '--silent',
    'src/index.ts',
  ],
  { cwd: root, stdio: 'inherit' },
);
