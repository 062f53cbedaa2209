import { expect, it } from 'vitest';
import { runUnderChaos, SEED } from './chaos.ts';
import { CarefulShop } from './shops.ts';

it(`de-duplicates on webhook-id and orders by timestamp: its books match the API under webhook chaos (seed ${SEED})`, async () => {
  const shop = new CarefulShop();
  const { truth, duplicates, overtaken } = await runUnderChaos(shop);
  // the chaos happened: events came twice, and some booking.updated came after newer events
  expect(duplicates, `seed ${SEED} duplicated no event: try another CHAOS_SEED`).toBeGreaterThan(0);
  expect(overtaken, `seed ${SEED} held back no booking.updated: try another CHAOS_SEED`).toBeGreaterThan(0);
  expect(shop.bookingsSold).toBe(truth.size);
  expect(shop.statuses).toEqual(truth);
});
