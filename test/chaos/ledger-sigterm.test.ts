/**
 * The chaos ledger, SIGTERM: as ledger-kill9.test.ts, but
 * the sandbox is stopped with SIGTERM at seeded random moments. A stop drains:
 * it exits 0, and every client got an answer or a connection error, never an
 * error after its work was kept (a 503 from the stop keeps nothing either).
 * The last round stops with --stop-timeout 0, so requests still running are cut.
 *
 * CHAOS_SEED, CHAOS_ROUNDS and CHAOS_CUT_ROUND override the defaults (CI runs the full rounds, a local run the first: test/setup/depth.ts); the seed is in every message.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkJobRuns, checkKeptAfterRestart, deliveriesSettled, fixture, keepBeforeRestart, Ledger, Receiver, subscribe } from './ledger.ts';
import { exported, prng, startSandbox, stopIfRunning } from './process.ts';
import { depth } from '../setup/depth.ts';

const SEED = Number(process.env.CHAOS_SEED ?? 20261128);
// two rounds at least: one stop with the default grace, one cut (CUT_ROUND)
const ROUNDS = depth('CHAOS_ROUNDS', 3, 2);
const CLIENTS = 8;

const root = await mkdtemp(join(tmpdir(), 'tcs-ledger-sigterm-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** the round that stops with --stop-timeout 0, the last (the others keep the default); CHAOS_CUT_ROUND=0 for none (code without the option) */
const CUT_ROUND = Number(process.env.CHAOS_CUT_ROUND ?? ROUNDS);
const optionsFor = (round: number) => (round === CUT_ROUND ? ['--stop-timeout', '0'] : []);

describe('chaos ledger: SIGTERM under keyed and unkeyed writes with a subscribed receiver', () => {
  it(`answers every request it kept, exits 0, and keeps what kill -9 keeps (${ROUNDS} stops, seed ${SEED})`, async () => {
    const moments = prng(SEED);
    const file = join(root, 'db.json');
    const receiver = await Receiver.start();
    let started = await startSandbox(file, optionsFor(1));
    const fx = await fixture(started.url, started.workspaceId);
    const subscription = await subscribe(started.url, receiver);
    const ledger = new Ledger(prng(SEED + 1), fx);
    const exitLines: string[] = [];
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const where = `after SIGTERM ${round} (seed ${SEED})`;
        const kept = await keepBeforeRestart(started.url, fx, round);
        const writing = ledger.clients(started.url, CLIENTS, round);
        await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(moments() * 1300)));
        started.run.child.kill('SIGTERM');
        const exit = await started.run.exit;
        expect(exit.code, `${where}: the stop did not exit 0 (${exit.signal ?? exit.code}): ${exit.stderr}`).toBe(0);
        // with --json the exit line is a second JSON line: how many requests the stop drained, cut and refused
        const stoppedLine = exit.stdout.split('\n').find((l) => l.includes('"stopped"'));
        expect.soft(stoppedLine, `${where}: the exit line says how many requests were drained and cut`).toBeDefined();
        exitLines.push(stoppedLine ?? '(no exit line)');
        await writing;

        started = await startSandbox(file, optionsFor(round + 1));
        await checkKeptAfterRestart(started.url, started.workspaceId, kept, where);
        ledger.checkNothingKeptUnanswered(await exported(started.url, started.workspaceId), round, where);
        await ledger.retry(started.url);
        await deliveriesSettled(started.url, subscription, where);
        ledger.verify(await exported(started.url, started.workspaceId), receiver, where);
        await checkJobRuns(started.url, started.workspaceId, kept, receiver, where);
      }
    } finally {
      await stopIfRunning(started.run).finally(() => receiver.close());
    }
    const f = ledger.figures();
    console.log(
      `ledger figures (SIGTERM): ${ROUNDS} rounds, ${f.requests} requests, ${f.acknowledged} writes acknowledged, ${receiver.events.size} events received; without a 2xx: ${JSON.stringify(f.errors)}; exit lines: ${exitLines.join(' | ')} (seed ${SEED})`,
    );
  }, 120_000);
});
