import { dim, printJson } from './output.ts';
import { say, type ScriptFlags } from './format.ts';
import { controlClient, resolveWorkspace } from './trigger.ts';

/**
 * `sandbox seed`: more generated volume in a running sandbox (POST
 * /__sandbox/seed): products with pricing options and departures, customers,
 * and bookings on the new and existing departures. Same seed and same data:
 * same rows.
 */
export interface SeedFlags extends ScriptFlags {
  products?: number;
  bookings?: number;
  seed?: number;
}

export async function runSeed(flags: SeedFlags): Promise<void> {
  const client = controlClient(flags);
  const workspace = await resolveWorkspace(client, flags.workspace);
  const result = await client.seed({
    workspaceId: workspace.id,
    ...(flags.products !== undefined ? { products: flags.products } : {}),
    ...(flags.bookings !== undefined ? { bookings: flags.bookings } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
  });
  if (flags.json) return printJson(result);
  const added = Object.entries(result.created).filter(([, n]) => n > 0).map(([name, n]) => `${n} ${name}`);
  say([
    `Seeded ${workspace.name} (seed ${result.seed}) in ${result.ms} ms: ${added.join(', ') || 'nothing to add'}`,
    ...(result.updated.departures > 0 ? [dim(`  ${result.updated.departures} existing departures took seats`)] : []),
  ].join('\n'));
}
