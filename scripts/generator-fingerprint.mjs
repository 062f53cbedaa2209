// The fixture generator's version, for the key of the prepared database
// (src/fixtures/prepared.ts): a hash of every source file whose change can
// change the generated rows, faker's version and the package version. Plain
// JavaScript so that scripts/build.mjs can bake it into the bundle, and the
// sources (under tsx or vitest) compute it at run time from the same files.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Folders (all .ts files, recursively) and files the generator's output depends on. */
const SOURCES = [
  'src/fixtures',
  'src/core',
  'src/storage/types.ts',
  'src/storage/collection.ts',
  'src/resources/index.ts',
  'src/webhooks/outbox.ts',
  'src/resources/departures/quote-arithmetic.ts',
];
/**
 * Resource modules the generator imports record helpers from: their schemas.ts,
 * and collections.ts, which names each collection and its id prefix (the list
 * in src/resources/index.ts orders the collections in the database); and, above,
 * the quote arithmetic that prices generated bookings.
 */
const RESOURCE_SCHEMAS = 'src/resources';
const AREA_FILES = ['schemas.ts', 'collections.ts'];

function tsFiles(root, rel) {
  const entries = readdirSync(join(root, rel), { withFileTypes: true });
  return entries.flatMap((entry) => {
    const path = `${rel}/${entry.name}`;
    if (entry.isDirectory()) return tsFiles(root, path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function version(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8')).version ?? '?';
  } catch {
    return '?';
  }
}

/** faker's installed version, found from where Node resolves it (hoisted or not). */
function fakerVersion(root) {
  try {
    let dir = dirname(createRequire(join(root, 'package.json')).resolve('@faker-js/faker'));
    while (dirname(dir) !== dir) {
      try {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        if (pkg.name === '@faker-js/faker') return pkg.version;
      } catch {
        // no package.json at this level
      }
      dir = dirname(dir);
    }
  } catch {
    // not installed: generation would fail anyway
  }
  return '?';
}

/** @param {string} root the package root */
export function generatorFingerprint(root) {
  const files = SOURCES.flatMap((rel) => (rel.endsWith('.ts') ? [rel] : tsFiles(root, rel)));
  for (const area of readdirSync(join(root, RESOURCE_SCHEMAS), { withFileTypes: true })) {
    if (area.isDirectory()) for (const name of AREA_FILES) files.push(`${RESOURCE_SCHEMAS}/${area.name}/${name}`);
  }
  const hash = createHash('sha256');
  hash.update(`package ${version(join(root, 'package.json'))}\0faker ${fakerVersion(root)}\0`);
  for (const file of files.sort()) {
    let text = '';
    try {
      text = readFileSync(join(root, file), 'utf8');
    } catch {
      // an area without schemas.ts or collections.ts
    }
    hash.update(`${file}\0${text.length}\0${text}\0`);
  }
  return hash.digest('hex').slice(0, 24);
}
