import type { SeedResult } from '../control/client.ts';
import { dim, printJson } from './output.ts';
import { plural, say } from './format.ts';
import { controlClient, resolveWorkspace, type ScriptFlags } from './control.ts';

/**
 * `sandbox seed`: more generated volume in a running sandbox (POST
 * /__sandbox/seed): products with pricing options and departures, customers,
 * and bookings on the new and existing departures. Same seed and same data:
 * same rows. A large run is sent as several requests, so that it can show
 * progress: a bar on a terminal, a plain line per step otherwise (stderr,
 * so --json stays one document). The sandbox itself seeds in chunks and keeps
 * answering other requests meanwhile.
 */
export interface SeedFlags extends ScriptFlags {
  products?: number;
  bookings?: number;
  seed?: number;
}

/** Below this many items (a product counting as 10 bookings) a run is one request with no progress shown. */
const PROGRESS_FROM = 2000;
const STEPS = 20;

export async function runSeed(flags: SeedFlags): Promise<void> {
  const client = await controlClient(flags);
  const workspace = await resolveWorkspace(client, flags.workspace);
  const products = flags.products ?? (flags.bookings === undefined ? 10 : 0);
  const bookings = flags.bookings ?? (flags.products === undefined ? 50 : 0);
  const steps = products * 10 + bookings >= PROGRESS_FROM ? STEPS : 1;
  const progress = steps > 1 ? progressReporter(products, bookings) : null;
  const results: SeedResult[] = [];
  const asked = { products: 0, bookings: 0 };
  // the progress counts what the sandbox made, not what was asked: a run whose departures sell
  // out makes fewer bookings; the percentage is how far through its steps the run is
  const made = { products: 0, bookings: 0 };
  const interrupt = stopBetweenChunks();
  for (let i = 1; i <= steps && !interrupt.asked; i++) {
    const part = { products: Math.round((products * i) / steps) - asked.products, bookings: Math.round((bookings * i) / steps) - asked.bookings };
    const result = await client.seed({
      workspaceId: workspace.id,
      products: part.products,
      bookings: part.bookings,
      ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
    });
    results.push(result);
    asked.products += part.products;
    asked.bookings += part.bookings;
    made.products += result.created.products ?? 0;
    made.bookings += result.created.bookings ?? 0;
    progress?.(made, i / steps);
  }
  interrupt.release();
  // a Ctrl-C during the last chunk stopped nothing: the run ends as any other
  if (interrupt.asked && results.length < steps) stoppedEarly(workspace.name, mergeResults(results, { products, bookings }));
  const result = mergeResults(results, { products, bookings });
  if (flags.json) return printJson(result);
  const added = Object.entries(result.created)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => plural(n, n === 1 ? singular(name) : name, name));
  say(
    [
      `Seeded ${workspace.name} (seed ${result.seed}) in ${result.ms} ms: ${added.join(', ') || 'nothing to add'}`,
      ...(result.updated.departures > 0 ? [dim(`  ${plural(result.updated.departures, 'existing departure')} took seats`)] : []),
      ...((result.created.products ?? 0) > products
        ? [dim(`  ${plural((result.created.products ?? 0) - products, 'product')} added so that the bookings find seats`)]
        : []),
      ...(result.shortfall ? [`  ${result.shortfall}`] : []),
    ].join('\n'),
  );
}

/**
 * Ctrl-C: the chunk the sandbox is making finishes (it would anyway: a request sent is
 * made), then no other is sent; a second Ctrl-C leaves at once.
 */
function stopBetweenChunks(): { readonly asked: boolean; release(): void } {
  const state = { asked: false };
  const onSignal = () => {
    if (state.asked) process.exit(130);
    state.asked = true;
    if (process.stderr.isTTY) process.stderr.write('\n');
    process.stderr.write('sandbox: stopping after the chunk being made (Ctrl-C again to leave now)\n');
  };
  process.on('SIGINT', onSignal);
  return {
    get asked() {
      return state.asked;
    },
    release: () => process.off('SIGINT', onSignal),
  };
}

/** What an interrupted run made, that it is kept, and how to undo it; exit 130 as a shell's Ctrl-C. */
function stoppedEarly(workspaceName: string, result: SeedResult): never {
  const made = Object.entries(result.created)
    .filter(([, n]) => n > 0)
    .map(([name, n]) => `${n.toLocaleString('en')} ${name}`);
  const asked = [
    result.requested.bookings ? `${result.requested.bookings.toLocaleString('en')} bookings` : '',
    result.requested.products ? `${result.requested.products.toLocaleString('en')} products` : '',
  ]
    .filter(Boolean)
    .join(' and ');
  process.stderr.write(
    `${[
      `sandbox: seed stopped by Ctrl-C between chunks; ${workspaceName} keeps what was made: ${made.join(', ') || 'nothing'} (of ${asked} asked)`,
      `  to undo it: \`sandbox reset\` (every workspace back to its fixtures), \`sandbox workspace reset ${shellWord(workspaceName)}\` (this one alone), or \`sandbox snapshot restore <name>\` for a snapshot saved before`,
    ].join('\n')}\n`,
  );
  process.exit(130);
}

const shellWord = (text: string): string => (/^[\w./-]+$/.test(text) ? text : `"${text.replace(/(["\\$`])/g, '\\$1')}"`);

function mergeResults(results: SeedResult[], requested: { products: number; bookings: number }): SeedResult {
  const created: Record<string, number> = {};
  for (const r of results) for (const [name, n] of Object.entries(r.created)) created[name] = (created[name] ?? 0) + n;
  const made = created.bookings ?? 0;
  // the last step's reason: the one that ran out (each step only knows its own part)
  const why = results.findLast((r) => r.shortfall)?.shortfall?.replace(/^created [\d,]+ of [\d,]+ bookings: /, '');
  return {
    workspaceId: results[0]!.workspaceId,
    seed: results[0]!.seed,
    created,
    // a departure may take seats in several steps: this counts it once per step
    updated: { departures: results.reduce((n, r) => n + r.updated.departures, 0) },
    requested,
    ...(made < requested.bookings
      ? { shortfall: `created ${made.toLocaleString('en')} of ${requested.bookings.toLocaleString('en')} bookings: ${why ?? 'the departures sold out'}` }
      : {}),
    ms: Math.round(results.reduce((n, r) => n + r.ms, 0) * 100) / 100,
  };
}

/** A collection's name for one row: `bookings` -> `booking`, `people` -> `person`. */
const singular = (collection: string): string => (collection === 'people' ? 'person' : collection.replace(/s$/, ''));

/** Products made of those asked; a run adds more when the bookings need seats (src/control/seed.ts). */
function productsText(made: number, asked: number): string {
  if (made <= asked) return `${made}/${asked} products`;
  return asked === 0 ? `${plural(made, 'product')} added for seats` : `${made} products (${asked} asked, the rest added for seats)`;
}

/**
 * A bar redrawn in place on a terminal; plain lines when stderr is a pipe or a file. `made` is
 * what the sandbox has made so far, of the `products` and `bookings` asked; `fraction` is how far
 * through its steps the run is (so a run that falls short still ends at 100%, saying what it made).
 */
export function progressReporter(
  products: number,
  bookings: number,
  out: NodeJS.WriteStream = process.stderr,
): (made: { products: number; bookings: number }, fraction: number) => void {
  return (made, fraction) => {
    const text = `${productsText(made.products, products)}, ${made.bookings}/${bookings} bookings`;
    if (out.isTTY) {
      const width = 30;
      const filled = Math.round(fraction * width);
      out.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${Math.round(fraction * 100)}% ${text}`);
      if (fraction >= 1) out.write('\n');
    } else {
      out.write(`seeding: ${Math.round(fraction * 100)}% (${text})\n`);
    }
  };
}
