/**
 * The suite's tiers. `npm run test:fast` runs every file except
 * these: no child process, no browser, no packed tarball, so it answers in
 * seconds on every change. `npm test` (and CI) runs them all.
 *
 * A file belongs here when it, or a helper of test/ or bench/ it imports,
 * imports node:child_process or playwright-core: test/vitest-config.test.ts
 * checks that list against the imports, and in the fast tier
 * test/setup/no-spawn.ts fails a test that starts a process anyway (through
 * src/, say: `exec`, `start --detach`). An entry ending in `/` is a folder.
 */
export const SPAWNING_FILES = [
  'test/chaos/',
  'test/docs/',
  'test/journeys/',
  'test/package/',
  'test/parity/proxy-cli.test.ts',
  'test/cli/action-stop.test.ts',
  'test/cli/bin-names.test.ts',
  'test/cli/code-cache.test.ts',
  'test/cli/commands/listen-stop.test.ts',
  'test/cli/commands/listen-trigger.test.ts',
  'test/cli/commands/openapi-version.test.ts',
  'test/cli/commands/state-logs.test.ts',
  'test/cli/detach-stop-wait.test.ts',
  'test/cli/env-options.test.ts',
  'test/cli/exec-report.test.ts',
  'test/cli/exec.test.ts',
  'test/cli/find-the-sandbox.test.ts',
  'test/cli/forgiving-cli.test.ts',
  'test/cli/hostile-files.test.ts',
  'test/cli/lock.test.ts',
  'test/cli/start.test.ts',
  'test/cli/stop-signal.test.ts',
  'test/cli/stop-this-folder.test.ts',
  'test/cli/strict.test.ts',
  'test/cli/webhooks-e2e.test.ts',
  'test/container/dockerfile.test.ts',
  'test/control/seed-chunks.test.ts',
  'test/control/seed-state-memory.test.ts',
  'test/dashboard/e2e-tmux.test.ts',
  'test/dashboard/plain-log.test.ts',
  'test/helpers/cli-in-process.test.ts',
  'test/helpers/cli.test.ts',
  'test/inspector/cli.test.ts',
  'test/inspector/data.test.ts',
  'test/inspector/guards.test.ts',
  'test/inspector/keys.test.ts',
  'test/inspector/parity.test.ts',
  'test/inspector/requests.test.ts',
  'test/inspector/shell.test.ts',
  'test/inspector/time.test.ts',
  'test/inspector/webhooks.test.ts',
  'test/mcp/mcp.test.ts',
  'test/security/browser.test.ts',
  'test/security/data-path-lock.test.ts',
  'test/setup/orphans.test.ts',
  'test/setup/silent-skips.test.ts',
  'test/storage/crash.test.ts',
  'test/storage/hand-edits.test.ts',
  'test/storage/lock-edges.test.ts',
  'test/storage/lock.test.ts',
  'test/storage/retention.test.ts',
  'test/webhooks/cli.test.ts',
  'test/workspaces/cap.test.ts',
  'test/workspaces/cli.test.ts',
];

/** The files that need Chromium (/usr/bin/chromium, or CHROMIUM_PATH): skipped, and said so, without it. */
export const BROWSER_FILES = [
  'test/inspector/data.test.ts',
  'test/inspector/guards.test.ts',
  'test/inspector/keys.test.ts',
  'test/inspector/requests.test.ts',
  'test/inspector/shell.test.ts',
  'test/inspector/time.test.ts',
  'test/inspector/webhooks.test.ts',
  'test/security/browser.test.ts',
];

/**
 * The files that take longest (seconds, measured alone and in the whole suite on the 2-core
 * machine): they start first, so that no long file starts last and runs alone at the end. Vitest
 * orders by the durations it cached, but that cache is shared by every checkout and rewritten by
 * each partial run (a `-t` filter records a long file as short); these figures hold it up.
 */
export const LONG_FILES: Record<string, number> = {
  // seconds in a whole local run (docs/testing.md, "Speed"); under CI the chaos
  // files run every round (test/setup/depth.ts) and take longer: kill9-state about 24, kill9 15
  'test/docs/docs.test.ts': 27,
  'test/package/ci-shell-journeys.test.ts': 17, // the first package file packs the tarball the others wait for
  'test/chaos/stale-save.test.ts': 13.5,
  'test/package/ci-journeys.test.ts': 12,
  'test/package/readme-journeys.test.ts': 27, // measured alone, the package cache warm: the README's booking and the scenario step from a project
  'test/journeys/first-booking-again.test.ts': 25, // measured alone: ten runs of the README's booking, two starts
  'test/setup/orphans.test.ts': 8.3,
  'test/chaos/kill9-state.test.ts': 7.5,
  'test/inspector/requests.test.ts': 7.1,
  'test/chaos/watch-writes.test.ts': 6.7,
  'test/setup/silent-skips.test.ts': 6.6,
  'test/package/consumer.test.ts': 5.5, // 3.8 with the package cache warm
  'test/control/seed-chunks.test.ts': 5.5,
  'test/watch.test.ts': 5.3,
  'test/cli/exec-report.test.ts': 5,
  'test/inspector/time.test.ts': 4.8,
  'test/dashboard/e2e-tmux.test.ts': 4.7,
  'test/cli/detach-stop-wait.test.ts': 4.6,
  'test/chaos/ledger-sigterm.test.ts': 4.4,
  'test/chaos/kill9.test.ts': 4.2,
};

/** Whether `file` (relative to the repository, `/`-separated) is listed: by name, or under a listed folder. */
export const listed = (file: string, entries: readonly string[]): boolean =>
  entries.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));

/** The entries as vitest globs. */
export const globs = (entries: readonly string[]): string[] =>
  entries.flatMap((entry) => (entry.endsWith('/') ? [`${entry}**/*.test.ts`, `${entry}**/*.test.tsx`] : [entry]));
