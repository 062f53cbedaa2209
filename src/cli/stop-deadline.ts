/**
 * SIGTERM (or Ctrl+C) ends `sandbox start` within its drain deadline (the
 * --stop-timeout the requests in flight get) plus FLUSH_GRACE_MS,
 * whatever it is doing. A clean stop drains, then flushes
 * and compacts; when it has not finished by then, or a second signal comes,
 * the process ends anyway.
 * That loses nothing: every acknowledged write is already in the journal, and
 * a compaction cut short is redone at the next start (docs/storage.md).
 *
 * `process.exit` is not enough for that: it waits for libuv's file-system
 * threads, and a thread stuck in a read that never returns (a named pipe) kept
 * the process alive for good after SIGTERM. The way out that does not wait for
 * them is the signal's default action, which ends the process as "killed by
 * SIGTERM" (exit status 143 in a shell).
 */
/** what a stop may take after its drain: stopping the services, the flush and the compaction (`start --flush-grace`) */
export const FLUSH_GRACE_MS = 5_000;
const POLL_MS = 25;

/** Ends the process at once, by the default action of SIGTERM (no exit handlers, no waiting for threads). */
export function endNow(why: string): void {
  process.stderr.write(`sandbox: ${why}; ending the process now (acknowledged writes are in the journal)\n`);
  process.removeAllListeners('SIGTERM');
  process.kill(process.pid, 'SIGTERM');
  // still here: PID 1 of a container (its own namespace ignores a signal it has no handler for);
  // process.exit is the way left, as 128 + SIGTERM like the signal's default action
  process.exit(143);
}

/** Arms the deadline of a stop whose drain may take `drainMs` and its flush `flushMs`; returns the exit to call once the stop is done. */
export function armStopDeadline(drainMs: number, flushMs = FLUSH_GRACE_MS): (code: number) => void {
  const graceMs = drainMs + flushMs;
  const deadline = Date.now() + graceMs;
  setTimeout(
    () =>
      endNow(
        `stopping took longer than ${graceMs / 1000} s (--stop-timeout ${drainMs / 1000} s for the requests in flight, then ${flushMs / 1000} s to flush)`,
      ),
    graceMs,
  );
  return function exitWhenIdle(code: number): void {
    // a file-system call still in flight may never return (see above): wait for it, up to the deadline
    if (!process.getActiveResourcesInfo().some((kind) => kind.startsWith('FSReq'))) process.exit(code);
    if (Date.now() >= deadline) return endNow('a file read is still waiting after the stop');
    setTimeout(() => exitWhenIdle(code), POLL_MS);
  };
}
