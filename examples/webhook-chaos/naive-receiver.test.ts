import { expect, it } from 'vitest';
import { runUnderChaos, SEED } from './chaos.ts';
import { NaiveShop } from './shops.ts';

// The careful receiver's test, run on the naive one: it fails under the same seed, as a
// receiver that trusts delivery to be exactly once and in order does in production.
// `it.fails` marks the failure as expected; take `.fails` away to see what it reports.
it.fails(`the naive receiver's books match the API under webhook chaos (seed ${SEED})`, async () => {
  const shop = new NaiveShop();
  const { truth } = await runUnderChaos(shop);
  expect(shop.bookingsSold).toBe(truth.size);
  expect(shop.statuses).toEqual(truth);
});

// How it goes wrong, so the failure above is that one and no other.
it(`the naive receiver counts a duplicate twice and lets a late booking.updated undo a cancellation (seed ${SEED})`, async () => {
  const shop = new NaiveShop();
  const { truth } = await runUnderChaos(shop);
  expect(shop.bookingsSold).toBeGreaterThan(truth.size);
  const undone = [...truth].filter(([id, status]) => status === 'cancelled' && shop.statuses.get(id) === 'confirmed');
  expect(undone.length).toBeGreaterThan(0);
});
