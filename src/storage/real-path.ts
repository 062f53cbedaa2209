/**
 * The one real file behind a `--data` path (docs/storage.md "Lock").
 *
 * The lock, the journal and the snapshot's temp file all sit beside the real
 * file, so two spellings of one database (a symlink to it, a path through a
 * symlinked directory, `./x/../db.json`) take one lock, and a write renames onto
 * the real file: a symlink the user pointed at stays a symlink and keeps
 * pointing at the data.
 *
 * A hard link cannot be told apart from the file it links to by its path, and
 * the atomic rename of every snapshot write would split the two names into two
 * databases anyway; so a database file with more than one link is refused
 * (SQLite's "how to corrupt" page warns against hard-linked databases for the
 * same reason).
 */
import { lstat, mkdir, readlink, realpath, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { errorMessage, isErrno } from './file-io.ts';
import { StoreError } from './types.ts';

/** As the kernel's own limit on a chain of symlinks (ELOOP). */
const MAX_LINKS = 40;

/**
 * Resolves `path` to the absolute path of the real file, following symlinks
 * (also dangling ones: a link to a database not created yet), and creates the
 * parent directory of the real file. Throws a StoreError naming the problem.
 */
export async function resolveDatabasePath(path: string): Promise<{ real: string; undoMkdir: () => Promise<void> }> {
  let current = resolve(path);
  for (let hops = 0; ; hops++) {
    const info = await lstatOrNull(current);
    if (!info?.isSymbolicLink()) break;
    if (hops === MAX_LINKS) throw new StoreError(`Cannot open database ${path}: more than ${MAX_LINKS} symbolic links to follow (a loop?)`);
    current = resolve(dirname(current), await readlink(current));
  }
  const dir = dirname(current);
  let created: string | undefined;
  try {
    created = await mkdir(dir, { recursive: true });
  } catch (err) {
    throw new StoreError(`Cannot open database ${path}: cannot create directory ${dir}: ${errorMessage(err)}`);
  }
  const real = join(await realpath(dir), basename(current));
  await refuseHardLinks(path, real);
  return { real, undoMkdir: () => removeEmptyDirs(dir, created) };
}

/** The directories mkdir created, deepest first, as long as they are empty (a start that wrote nothing). */
async function removeEmptyDirs(dir: string, created: string | undefined): Promise<void> {
  if (created === undefined) return;
  for (let current = dir; current.length >= created.length; current = dirname(current)) {
    try {
      await rmdir(current);
    } catch {
      return; // not empty (someone else's file), or gone: leave it
    }
    if (current === created) return;
  }
}

async function lstatOrNull(path: string) {
  try {
    return await lstat(path);
  } catch (err) {
    if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return null;
    throw new StoreError(`Cannot open database ${path}: ${errorMessage(err)}`);
  }
}

async function refuseHardLinks(given: string, real: string): Promise<void> {
  const info = await stat(real).catch(() => null);
  if (!info?.isFile()) return; // not created yet, or not a file: open-store reports it
  const links = info.nlink;
  if (links > 1) {
    throw new StoreError(
      `Cannot open database ${given}: ${real} has ${links} hard links, and the sandbox replaces the file on every snapshot, which would split them into separate databases; use a symbolic link or a copy instead`,
    );
  }
}
