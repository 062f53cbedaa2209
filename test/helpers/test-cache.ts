import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the tests make from the sources and keep between runs: the package files'
 * declarations, tarball and installed project (a rerun of `npm test` with the same sources packed,
 * installed and declared the same bytes again, about 35 s of CPU), and tools' outputs for the
 * served OpenAPI document (keptByHash). Each entry is named by the sha256 of everything it was made
 * from, so a change of any input makes a new one; the folder is in node_modules/.cache, gone with
 * a fresh install, as vitest's module cache is.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const NODE_MODULES = join(ROOT, 'node_modules');
export const CACHE_DIR = join(NODE_MODULES, '.cache', 'travel-commerce-sandbox-tests');

/** Entries kept per kind (several checkouts share node_modules); older ones are removed. */
const KEEP = 3;
/** An entry used this recently is never removed: a run (a few minutes) may still be copying from it. */
const IN_USE_MS = 15 * 60_000;

/** sha256 of `extra`, then of each file under `paths` (relative to `base`, in a stable order) by its path and bytes. */
export function hashOf(base: string, paths: readonly string[], extra: readonly string[] = [], skip: (path: string) => boolean = () => false): string {
  const hash = createHash('sha256');
  for (const text of extra) hash.update(`${text}\0`);
  const walk = (path: string) => {
    const full = join(base, path);
    if (!existsSync(full) || skip(path)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) walk(join(path, name));
      return;
    }
    hash.update(`${path}\0`);
    hash.update(readFileSync(full));
    hash.update('\0');
  };
  for (const path of paths) walk(path);
  return hash.digest('hex');
}

/** sha256 of one file's bytes. */
export const fileHash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

interface Options {
  /** the cache folder; CACHE_DIR unless a test gives its own */
  dir?: string;
  /** an entry made longer ago is not used (and is made again) */
  maxAgeMs?: number;
  /** false when the entry is no longer what `make` made: it is removed and made again */
  intact?: (dir: string, madeAt: number) => boolean;
}

/**
 * The folder `<kind>-<key>` of the cache: made by `make(dir)` in a temporary folder, then renamed
 * into place whole, so that a run never sees half an entry; when two runs make it at once, the
 * second one's rename fails and it takes the first one's.
 */
export async function cachedEntry(kind: string, key: string, make: (dir: string) => Promise<void>, options: Options = {}): Promise<string> {
  const cache = options.dir ?? CACHE_DIR;
  const entry = join(cache, `${kind}-${key}`);
  const madeAt = madeTime(entry);
  if (madeAt !== null) {
    const fresh = options.maxAgeMs === undefined || Date.now() - madeAt < options.maxAgeMs;
    if (fresh && (options.intact?.(entry, madeAt) ?? true)) {
      const now = new Date();
      utimesSync(entry, now, now); // its last use, for prune()
      return entry;
    }
    rmSync(entry, { recursive: true, force: true });
  }
  mkdirSync(cache, { recursive: true });
  const tmp = join(cache, `tmp-${kind}-${randomBytes(6).toString('hex')}`);
  mkdirSync(tmp);
  try {
    await make(tmp);
    writeFileSync(join(tmp, 'made.txt'), String(Date.now()));
    try {
      renameSync(tmp, entry);
    } catch (error) {
      if (madeTime(entry) === null) throw error; // not another run's entry
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  prune(cache, kind, entry);
  return entry;
}

/** When an entry was made (its made.txt), or null when there is none. */
function madeTime(entry: string): number | null {
  try {
    return Number(readFileSync(join(entry, 'made.txt'), 'utf8'));
  } catch {
    return null;
  }
}

/**
 * Removes the entries of `kind` beyond the newest KEEP by last use, except `current` and those in
 * use within IN_USE_MS, and the temporary folders of makes that were interrupted as long ago.
 */
function prune(cache: string, kind: string, current: string): void {
  for (const name of readdirSync(cache).filter((name) => name.startsWith('tmp-'))) {
    const path = join(cache, name);
    if (Date.now() - lastUse(path) > IN_USE_MS) rmSync(path, { recursive: true, force: true });
  }
  const entries = readdirSync(cache)
    .filter((name) => name.startsWith(`${kind}-`))
    .map((name) => ({ path: join(cache, name), used: lastUse(join(cache, name)) }))
    .sort((a, b) => b.used - a.used);
  for (const { path, used } of entries.slice(KEEP)) {
    if (path !== current && Date.now() - used > IN_USE_MS) rmSync(path, { recursive: true, force: true });
  }
}

/** A folder's modification time; now when another run removed it meanwhile (then nothing removes it again). */
function lastUse(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}

/**
 * Whether nothing under `dir` was modified after `madeAt`. The runs work in copies whose files are
 * hard links to the entry's: a file written in place in a copy would change the entry for every
 * later run. Files made in a copy are the copy's own (its folders are), and leave this alone.
 */
export function unmodifiedSince(dir: string, madeAt: number): boolean {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    if (Math.floor(stat.mtimeMs) > madeAt) return false; // made.txt holds whole milliseconds
    if (stat.isDirectory() && !unmodifiedSince(path, madeAt)) return false;
  }
  return true;
}

/** A file kept in the cache under `name` (not keyed: a tool's own incremental state, which checks its inputs itself). */
export const cachedFile = {
  restore(name: string, to: string): boolean {
    if (!existsSync(join(CACHE_DIR, name))) return false;
    copyFileSync(join(CACHE_DIR, name), to);
    return true;
  },
  save(from: string, name: string): void {
    mkdirSync(CACHE_DIR, { recursive: true });
    const tmp = join(CACHE_DIR, `tmp-${randomBytes(6).toString('hex')}-${name}`);
    copyFileSync(from, tmp);
    renameSync(tmp, join(CACHE_DIR, name)); // whole when another run reads it
  },
};

/** read off the installed package.json (some packages do not export it) */
const versionOf = (name: string) => (JSON.parse(readFileSync(join(NODE_MODULES, name, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * A tool's text output, kept by the sha256 of its input text and the versions of the packages that
 * make it: a rerun on the same input reads what the tool wrote rather than loading the tool again.
 * Only for tools whose output is a function of those inputs alone.
 */
export async function keptByHash(name: string, packages: readonly string[], input: string, produce: () => Promise<string>): Promise<string> {
  const key = createHash('sha256')
    .update(`${packages.map((p) => `${p}@${versionOf(p)}`).join(' ')}\n`)
    .update(input)
    .digest('hex');
  const entry = await cachedEntry(name, key, async (dir) => writeFileSync(join(dir, 'output'), await produce()));
  return readFileSync(join(entry, 'output'), 'utf8');
}
