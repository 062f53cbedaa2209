/**
 * Shared by the chaos files: a real `sandbox start` process, a seeded PRNG, and
 * writers that count what the sandbox acknowledged.
 */
import { KEYS } from '../helpers/sandbox.ts';
import { runCli, type Running } from '../helpers/cli.ts';
import { sendText } from '../../src/control/http-send.ts';

/** mulberry32: a tiny seeded PRNG, so kill moments and choices repeat with the seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Started {
  run: Running;
  url: string;
  workspaceId: string;
}

/** `sandbox start --data file --json ...extra`, resolved once it serves. */
export async function startSandbox(file: string, extra: string[] = []): Promise<Started> {
  const run = runCli(['start', '--data', file, '--port', '0', '--json', '--no-rate-limits', ...extra]);
  const line = await run.firstLine;
  let summary: { url: string; workspaces: { id: string; mode: string }[] };
  try {
    summary = JSON.parse(line);
  } catch {
    const { stderr } = await run.exit;
    throw new Error(`the sandbox did not start on ${file}: ${stderr.trim()}`);
  }
  return { run, url: summary.url, workspaceId: summary.workspaces.find((w) => w.mode === 'live')!.id };
}

/**
 * Stops it unless it has already exited: a test that failed between a kill and the next start
 * still holds the killed process, and a second stop would throw over the failure that matters.
 */
export async function stopIfRunning(run: Running): Promise<void> {
  if (run.child.exitCode === null && run.child.signalCode === null) await stopSandbox(run);
}

/** Stops with SIGTERM and expects a clean exit. */
export async function stopSandbox(run: Running): Promise<void> {
  run.child.kill('SIGTERM');
  const exit = await run.exit;
  if (exit.code !== 0) throw new Error(`the sandbox did not stop cleanly (${exit.signal ?? `code ${exit.code}`}): ${exit.stderr.trim()}`);
}

export type Row = { id: string } & Record<string, unknown>;

export async function exported(url: string, workspaceId: string): Promise<Record<string, Row[]>> {
  const res = await fetch(`${url}/__sandbox/workspaces/${workspaceId}/export`);
  return ((await res.json()) as { data: Record<string, Row[]> }).data;
}

export const auth = { authorization: `Bearer ${KEYS.liveFull}` };

/**
 * `count` loops of `POST /v1/forms`, each form's id kept once acknowledged
 * (201), with what `phase()` said when its request was sent. They run until
 * stop() or until the process is gone (a refused connection: never acknowledged).
 * `client`: fetch, or node:http (the control client's sendText) where the test waits for counts of
 * writes, as watch-writes does (300 acknowledged, then 300 more): fetch (undici and its web streams)
 * spent 1.0 to 1.4 ms of the test process's CPU per POST, node:http 0.2 to 0.3 ms, measured side by
 * side against one sandbox. Not for writers that run for a time (kill9, the ledger, kill9-state's
 * seeded windows, stale-save's wait for a compaction): a cheaper client makes more writes in the
 * same time, each paid by the sandbox, not less CPU; and the ledger's seats are budgeted for
 * fetch's pace (at node:http's, 3.3 times the requests, a departure sold out). A kill -9 shows the
 * same way with either: the request or the reading of its answer rejects, never acknowledged.
 */
export interface FormWriters {
  acked: Set<string>;
  sentIn: Map<string, string>;
  /** resolves once every writer has had its answer and sends nothing more until resume() */
  pause: () => Promise<void>;
  resume: () => void;
  stop: () => Promise<void>;
}

export function formWriters(url: string, count: number, tag: string, phase: () => string = () => '', client: 'fetch' | 'http' = 'fetch'): FormWriters {
  const acked = new Set<string>();
  const sentIn = new Map<string, string>();
  let running = true;
  let n = 0;
  let alive = count;
  /** while paused: the gate the writers wait at, and how many are waiting there */
  let gate = null as { opened: Promise<void>; open: () => void; waiting: number; allWaiting: () => void; idle: Promise<void> } | null;
  const paused = () => gate; // read through a call: TypeScript does not see the closures that set it
  const loop = async (w: number) => {
    while (running) {
      const here = paused();
      if (here) {
        if (++here.waiting >= alive) here.allWaiting();
        await here.opened;
        continue;
      }
      const sent = phase();
      try {
        const headers = { ...auth, 'content-type': 'application/json' };
        const form = { name: `${tag} w${w} #${n++}`, fields: [] };
        const res =
          client === 'http'
            ? await sendText(new URL(`${url}/v1/forms`), { method: 'POST', headers, body: JSON.stringify(form) })
            : await fetch(`${url}/v1/forms`, { method: 'POST', headers, body: JSON.stringify(form) });
        const body = JSON.parse(await res.text()) as { data?: Row } & Row;
        if (res.status === 201) {
          acked.add((body.data ?? body).id);
          sentIn.set((body.data ?? body).id, sent);
        }
      } catch {
        alive--;
        const here = paused();
        if (here && here.waiting >= alive) here.allWaiting();
        return; // the process is gone
      }
    }
  };
  const loops = Array.from({ length: count }, (_, w) => loop(w));
  return {
    acked,
    sentIn,
    pause: () => {
      if (!gate) {
        let open!: () => void;
        let allWaiting!: () => void;
        const opened = new Promise<void>((resolve) => (open = resolve));
        const idle = new Promise<void>((resolve) => (allWaiting = resolve));
        gate = { opened, open, waiting: 0, allWaiting, idle };
      }
      return gate.idle;
    },
    resume: () => {
      const opened = gate;
      gate = null;
      opened?.open();
    },
    stop: async () => {
      running = false;
      const opened = gate;
      gate = null;
      opened?.open();
      await Promise.all(loops);
    },
  };
}

/** Polls `check` every 25 ms until it returns true; fails after `deadlineMs` (a bound, not a timing assertion). */
export async function until(check: () => boolean | Promise<boolean>, what: string, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`still waiting after ${deadlineMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
