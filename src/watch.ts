import { basename, resolve } from 'node:path';
import type { Sandbox } from './sandbox.ts';
import { compactionScheduler, databaseEditLoader, oneLine } from './watch-database.ts';

/**
 * Live reload (`sandbox start --watch`), with chokidar:
 * - the fixtures directory: the catalog it defines is re-seeded, runtime data
 *   such as bookings is kept (fixtures/reseed.ts);
 * - the scenarios directory: reported; scenario runs read their file afresh;
 * - the database file (watch-database.ts): a hand edit is loaded with the
 *   writes made since applied on top; a change that leaves the content as the
 *   sandbox wrote it (a touch, an unchanged save) changes nothing. The journal
 *   is folded into the file within 2 s of a write, even under steady writes,
 *   so the file a person opens holds everything older than that.
 * A bad edit logs one line and keeps the last good state.
 */
const SETTLE_MS = 150;

export interface WatchOptions {
  scenariosDir: string;
  log: (line: string) => void;
  /**
   * The bound under steady writes (default 2 s, COMPACT_WITHIN_MS). No flag sets it: a test of the
   * bound passes a shorter one, so that its writers run for a fraction of the 2 s; the default
   * itself is checked on fake timers (test/watch-database.test.ts).
   */
  compactWithinMs?: number;
}

export async function watchSandbox(sandbox: Sandbox, options: WatchOptions): Promise<() => Promise<void>> {
  const { watch } = await import('chokidar');
  const ctx = sandbox.context;
  const fixturesDir = resolve(ctx.options.fixturesDir);
  const scenariosDir = resolve(options.scenariosDir);
  const dbPath = sandbox.store.path;
  const { log } = options;

  // before the watcher starts: its 'ready' event must not pass while this is awaited
  if (dbPath) await sandbox.store.trackHandEdits();
  const watcher = watch([fixturesDir, scenariosDir, ...(dbPath ? [dbPath] : [])], {
    ignoreInitial: true,
    awaitWriteFinish: { stabilityThreshold: 80, pollInterval: 20 },
  });
  const timers = new Map<string, NodeJS.Timeout>();
  const settle = (key: string, run: () => Promise<void>) => {
    clearTimeout(timers.get(key));
    timers.set(
      key,
      setTimeout(() => void run().catch((err: Error) => log(`watch: ${oneLine(err.message)}`)), SETTLE_MS),
    );
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
  const compaction = compactionScheduler(() => compactable.compact!(), options.compactWithinMs);
  const offChange =
    dbPath && compactable.compact
      ? sandbox.store.onChange((change) => {
          if (change.kind === 'ops') compaction.wrote();
        })
      : () => undefined;

  await new Promise<void>((ready) => watcher.once('ready', () => ready()));
  log(`watch: watching ${fixturesDir}, ${scenariosDir}${dbPath ? ` and ${dbPath}` : ''}`);
  return async () => {
    offChange();
    compaction.stop();
    for (const timer of timers.values()) clearTimeout(timer);
    await watcher.close();
    // an edit saved just before the stop is dealt with now, as it would have been a moment later:
    // loaded, or refused in one line; the store's last snapshot then holds everything
    if (dbPath) await loadEdit().catch((err: Error) => log(`watch: ${oneLine(err.message)}`));
  };
}

async function reloadFixtures(sandbox: Sandbox, file: string, log: (line: string) => void): Promise<void> {
  try {
    await sandbox.context.reloadFixtures();
    log(`watch: ${file} changed; catalog re-seeded from the fixtures, runtime data kept`);
  } catch (err) {
    log(`watch: fixtures not reloaded, keeping the last good state: ${oneLine((err as Error).message)}`);
  }
}
