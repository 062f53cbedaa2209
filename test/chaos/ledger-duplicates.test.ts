/**
 * The chaos ledger (ledger.ts) with a `--duplicate` delivery rule active (docs/webhooks.md,
 * "Testing your receiver"): the sandbox is stopped at seeded random moments, by kill -9 and by
 * SIGTERM in turn, and started again on the same file; the rule is added again after each start
 * (rules live in memory). The ledger's checks hold as without the rule: every acknowledged write
 * is in the file once, with its events delivered (a duplicate is the same event), and no event
 * comes without its record. And every extra delivery the receiver got is one a rule made, save
 * the attempts a stop cut, which are made again after the restart.
 *
 * CHAOS_SEED and CHAOS_ROUNDS override the defaults (CI runs the full rounds, a local run the first: test/setup/depth.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkExtraDeliveries, deliveriesSettled, fixture, Ledger, Receiver, subscribe } from './ledger.ts';
import { exported, prng, startSandbox, stopIfRunning } from './process.ts';
import { depth } from '../setup/depth.ts';

const SEED = Number(process.env.CHAOS_SEED ?? 20261129);
const ROUNDS = depth('CHAOS_ROUNDS', 4, 2);
const CLIENTS = 8;

const root = await mkdtemp(join(tmpdir(), 'tcs-ledger-duplicates-'));
afterAll(() => rm(root, { recursive: true, force: true }));

/** A rule that delivers about a third of the events twice, seeded: added after every start. */
async function duplicateRule(url: string, round: number): Promise<void> {
  const res = await fetch(`${url}/__sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: 'delivery', duplicate: true, probability: 0.3, seed: SEED + round }),
  });
  expect(res.status, await res.text()).toBe(201);
}

describe('chaos ledger with a --duplicate delivery rule: kill -9 and SIGTERM in turn', () => {
  it(`keeps every acknowledged write once with its events, and every extra delivery is a duplicate a rule made (${ROUNDS} stops, seed ${SEED})`, async () => {
    const moments = prng(SEED);
    const file = join(root, 'db.json');
    const receiver = await Receiver.start();
    let started = await startSandbox(file);
    const fx = await fixture(started.url, started.workspaceId);
    const subscription = await subscribe(started.url, receiver);
    const ledger = new Ledger(prng(SEED + 1), fx);
    let extras = { made: 0, resent: 0 };
    try {
      await duplicateRule(started.url, 0);
      for (let round = 1; round <= ROUNDS; round++) {
        const signal = round % 2 === 1 ? 'SIGKILL' : 'SIGTERM';
        const where = `after ${signal} ${round} (seed ${SEED})`;
        const writing = ledger.clients(started.url, CLIENTS, round);
        await new Promise((resolve) => setTimeout(resolve, 200 + Math.floor(moments() * 1300)));
        started.run.child.kill(signal);
        await started.run.exit;
        receiver.stops++;
        await writing;

        started = await startSandbox(file);
        await duplicateRule(started.url, round);
        await ledger.retry(started.url);
        await deliveriesSettled(started.url, subscription, where);
        ledger.verify(await exported(started.url, started.workspaceId), receiver, where);
        extras = await checkExtraDeliveries(started.url, subscription, receiver, where);
      }
    } finally {
      await stopIfRunning(started.run).finally(() => receiver.close());
    }
    console.log(
      `ledger figures (duplicates): ${ROUNDS} stops, ${receiver.events.size} events received in ${receiver.deliveries} deliveries: ${extras.made} duplicates a rule made, ${extras.resent} sent again after a restart (seed ${SEED})`,
    );
    expect(extras.made).toBeGreaterThan(0);
  }, 120_000);
});
