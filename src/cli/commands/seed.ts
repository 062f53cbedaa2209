import type { Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { parseInteger } from './options.ts';

/** `sandbox seed`: more generated volume in a running sandbox. */
export function seedCommand(program: Command): void {
  withWorkspace(controlCommand(program, 'seed', 'add generated products, departures, customers and bookings', ['seed --products 50 --bookings 500 --seed 7']))
    .option('--products <n>', 'products to add (default 10, or 0 with --bookings)', parseInteger('--products', 0, 5000))
    .option('--bookings <n>', 'bookings to add (default 50, or 0 with --products)', parseInteger('--bookings', 0, 50_000))
    .option('--seed <n>', 'faker seed (default: the sandbox seed)', parseInteger('--seed', 0, 2 ** 31 - 1))
    .action(async (opts) => (await import('../seed.ts')).runSeed(opts));
}
