/**
 * The chaos ledger, kill -9: clients write bookings (keyed
 * and unkeyed creates, PATCHes, passenger changes) with a subscribed webhook
 * receiver, the sandbox is killed with SIGKILL at seeded random moments and
 * started again on the same file, the clients retry their unanswered keyed
 * requests with the same keys and bodies, and the ledger of answers is checked
 * against the file and the receiver (ledger.ts): every acknowledged write
 * there once, its events delivered, no event without its record, no key with
 * two bookings; and the clock, an expired key and a pending deletion job are
 * where they were.
 *
 * CHAOS_SEED and CHAOS_ROUNDS override the defaults (CI runs the full rounds, a local run the first: test/setup/depth.ts); the seed is in every message.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkJobRuns, checkKeptAfterRestart, deliveriesSettled, fixture, keepBeforeRestart, Ledger, Receiver, subscribe } from './ledger.ts';
import { exported, prng, startSandbox, stopIfRunning } from './process.ts';
import { depth } from '../setup/depth.ts';

const SEED = Number(process.env.CHAOS_SEED ?? 20261127);
const ROUNDS = depth('CHAOS_ROUNDS', 4, 2);
const CLIENTS = 8;

const root = await mkdtemp(join(tmpdir(), 'tcs-ledger-kill9-'));
afterAll(() => rm(root, { recursive: true, force: true }));

describe('chaos ledger: kill -9 under keyed and unkeyed writes with a subscribed receiver', () => {
  it(`keeps every acknowledged write once, with its events, its key's one booking, the clock, an expired key and a pending job (${ROUNDS} kills, seed ${SEED})`, async () => {
    const moments = prng(SEED);
    const file = join(root, 'db.json');
    const receiver = await Receiver.start();
    let started = await startSandbox(file);
    const fx = await fixture(started.url, started.workspaceId);
    const subscription = await subscribe(started.url, receiver);
    const ledger = new Ledger(prng(SEED + 1), fx);
    let retried = 0;
    let replayed = 0;
    try {
      for (let round = 1; round <= ROUNDS; round++) {
        const where = `after kill ${round} (seed ${SEED})`;
        const kept = await keepBeforeRestart(started.url, fx, round);
        const writing = ledger.clients(started.url, CLIENTS, round);
        await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(moments() * 1300)));
        started.run.child.kill('SIGKILL');
        const exit = await started.run.exit;
        expect(exit.signal, `${where}: the sandbox exited by itself before the kill: ${exit.stderr}`).toBe('SIGKILL');
        await writing;

        started = await startSandbox(file);
        await checkKeptAfterRestart(started.url, started.workspaceId, kept, where);
        const again = await ledger.retry(started.url);
        retried += again.retried;
        replayed += again.replayed;
        await deliveriesSettled(started.url, subscription, where);
        ledger.verify(await exported(started.url, started.workspaceId), receiver, where);
        await checkJobRuns(started.url, started.workspaceId, kept, receiver, where);
      }
    } finally {
      await stopIfRunning(started.run).finally(() => receiver.close());
    }
    const f = ledger.figures();
    console.log(
      `ledger figures (kill -9): ${ROUNDS} rounds, ${f.requests} requests, ${f.acknowledged} writes acknowledged, ${retried} keyed retries (${replayed} replayed), ${receiver.events.size} events received in ${receiver.deliveries} deliveries; without a 2xx: ${JSON.stringify(f.errors)} (seed ${SEED})`,
    );
    expect(retried).toBeGreaterThan(0);
  }, 120_000);
});
