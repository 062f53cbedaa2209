import { stat } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { Sandbox } from './sandbox.ts';

/**
 * Live reload (`sandbox start --watch`), with chokidar:
 * - the fixtures directory: the catalog it defines is re-seeded, runtime data
 *   such as bookings is kept (fixtures/reseed.ts);
 * - the scenarios directory: reported; scenario runs read their file afresh;
 * - the database file: a hand edit is loaded; the sandbox's own writes are
 *   recognised (same inode, size and mtime) and ignored. While watching, the
 *   journal is compacted shortly after each write, so the file a person opens
 *   always holds everything.
 * A bad edit logs one line and keeps the last good state.
 */
const SETTLE_MS = 150;
const COMPACT_AFTER_IDLE_MS = 200;

export interface WatchOptions {
  scenariosDir: string;
  log: (line: string) => void;
}

export async function watchSandbox(sandbox: Sandbox, options: WatchOptions): Promise<() => Promise<void>> {
  const { watch } = await import('chokidar');
  const ctx = sandbox.context;
  const fixturesDir = resolve(ctx.options.fixturesDir);
  const scenariosDir = resolve(options.scenariosDir);
  const dbPath = sandbox.store.path;
  const { log } = options;

  const watcher = watch([fixturesDir, scenariosDir, ...(dbPath ? [dbPath] : [])], {
    ignoreInitial: true,
    awaitWriteFinish: { stabilityThreshold: 80, pollInterval: 20 },
  });
  const timers = new Map<string, NodeJS.Timeout>();
  const settle = (key: string, run: () => Promise<void>) => {
    clearTimeout(timers.get(key));
    timers.set(key, setTimeout(() => void run().catch((err: Error) => log(`watch: ${oneLine(err.message)}`)), SETTLE_MS));
  };

  const loadEdit = databaseEditLoader(sandbox, log);
  watcher.on('all', (_event, path) => {
    const full = resolve(path);
    if (dbPath && full === dbPath) settle('db', loadEdit);
    else if (full.startsWith(fixturesDir)) settle('fixtures', () => reloadFixtures(sandbox, basename(full), log));
    else if (full.startsWith(scenariosDir)) log(`watch: scenario ${basename(full)} changed; the next run reads it afresh`);
  });
  watcher.on('error', (err) => log(`watch: ${oneLine(String((err as Error).message ?? err))}`));

  const compactable = sandbox.store as typeof sandbox.store & { compact?: () => Promise<void> };
  const offChange = dbPath && compactable.compact
    ? sandbox.store.onChange((change) => {
        if (change.kind === 'ops') settleCompaction(timers, () => compactable.compact!());
      })
    : () => undefined;

  await new Promise<void>((ready) => watcher.once('ready', () => ready()));
  log(`watch: watching ${fixturesDir}, ${scenariosDir}${dbPath ? ` and ${dbPath}` : ''}`);
  return async () => {
    offChange();
    for (const timer of timers.values()) clearTimeout(timer);
    await watcher.close();
  };
}

function settleCompaction(timers: Map<string, NodeJS.Timeout>, compact: () => Promise<void>): void {
  clearTimeout(timers.get('compact'));
  timers.set('compact', setTimeout(() => void compact().catch(() => undefined), COMPACT_AFTER_IDLE_MS));
}

async function reloadFixtures(sandbox: Sandbox, file: string, log: (line: string) => void): Promise<void> {
  try {
    await sandbox.context.reloadFixtures();
    log(`watch: ${file} changed; catalog re-seeded from the fixtures, runtime data kept`);
  } catch (err) {
    log(`watch: fixtures not reloaded, keeping the last good state: ${oneLine((err as Error).message)}`);
  }
}

/**
 * Loads hand edits of the database file, one at a time. Under load chokidar
 * can report one edit twice (two change events further apart than the settle
 * delay); the file's identity (inode, size, mtime) of the last edit loaded
 * makes the second report a no-op instead of a second load.
 */
function databaseEditLoader(sandbox: Sandbox, log: (line: string) => void): () => Promise<void> {
  let lastLoaded: { ino: number; size: number; mtimeMs: number } | null = null;
  let running: Promise<void> = Promise.resolve();
  const load = async () => {
    const path = sandbox.store.path!;
    let info;
    try {
      info = await stat(path);
    } catch {
      return; // removed: the next write recreates it
    }
    if (sandbox.store.isOwnWrite(info)) return;
    if (lastLoaded && lastLoaded.ino === info.ino && lastLoaded.size === info.size && lastLoaded.mtimeMs === info.mtimeMs) return;
    lastLoaded = { ino: info.ino, size: info.size, mtimeMs: info.mtimeMs };
    try {
      await sandbox.context.replaceState(await sandbox.store.readFileCollections());
      log(`watch: ${basename(path)} was edited; loaded`);
    } catch (err) {
      log(`watch: ${basename(path)} not loaded, keeping the last good state: ${oneLine((err as Error).message)}`);
    }
  };
  return () => (running = running.then(load, load));
}

const oneLine = (text: string) => text.split('\n')[0]!;
