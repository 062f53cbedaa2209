import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import {
  FixtureCollectionSchema,
  FixtureDepartureSchema,
  FixtureFormSchema,
  FixturePersonSchema,
  FixturePolicySchema,
  FixtureProductSchema,
} from '../fixtures/schema.ts';
import type { StoredRow } from '../storage/index.ts';
import { redactJson } from '../core/redact.ts';

/**
 * `--record <dir>` (docs/parity.md, "Recording"): what the proxy learned, written as a fixtures
 * directory that `sandbox start --fixtures <dir>` loads: one file,
 * `recorded.json`, in the format of fixtures/*.json, ids kept. It is
 * rewritten shortly after each learning and when the proxy stops.
 *
 * Never written: the client's key, Authorization headers, webhook secrets
 * (webhook subscriptions are not learned at all). The file's workspace gets
 * a new random sandbox key of its own, the key of the offline sandbox.
 *
 * A product's fixture holds its prices and extensions: they come from its
 * learned pricing options and extensions (`GET /v1/products/:id/pricing/options`
 * and `/extensions` through the proxy; the generator gives them new ids). A
 * product whose options were never seen takes its `priceFrom` (the lowest adult
 * price, by our schema) as its adult price, with no child, infant or room price.
 */
type Learned = (collection: string) => Record<string, unknown>[];
const SECTIONS = {
  products: {
    schema: FixtureProductSchema as z.ZodType,
    from: (row: Record<string, unknown>, learned: Learned) => ({ ...pick(row, FixtureProductSchema), ...pricingOf(row, learned) }),
  },
  departures: { schema: FixtureDepartureSchema, from: (row: Record<string, unknown>) => pick(row, FixtureDepartureSchema) },
  people: { schema: FixturePersonSchema, from: (row: Record<string, unknown>) => pick(row, FixturePersonSchema) },
  policies: { schema: FixturePolicySchema, from: (row: Record<string, unknown>) => pick(row, FixturePolicySchema) },
  forms: { schema: FixtureFormSchema, from: (row: Record<string, unknown>) => pick(row, FixtureFormSchema) },
  collections: { schema: FixtureCollectionSchema, from: (row: Record<string, unknown>) => pick(row, FixtureCollectionSchema) },
} as const satisfies Record<string, { schema: z.ZodType; from: (row: Record<string, unknown>, learned: Learned) => unknown }>;
type Section = keyof typeof SECTIONS;

/** The fixture's `pricing` and `extensions` of a product, from what was learned of it. */
function pricingOf(product: Record<string, unknown>, learned: Learned): { pricing: unknown; extensions: unknown[] } {
  const options = learned('pricingOptions').filter((o) => o.productId === product.id && o.active !== false);
  const amount = (code: string) => (options.find((o) => o.code === code)?.amount as number | undefined) ?? null;
  const rooms = Object.fromEntries(options.filter((o) => o.kind === 'room').map((o) => [o.code, o.amount]));
  const extensions = learned('extensions')
    .filter((e) => e.productId === product.id && e.active !== false)
    .map((e) => ({ code: e.code, name: e.name, description: e.description, amount: e.amount, pricingUnit: e.pricingUnit, maxQuantity: e.maxQuantity }));
  return {
    pricing: {
      adult: amount('adult') ?? product.priceFrom,
      child: amount('child'),
      infant: amount('infant'),
      rooms: Object.keys(rooms).length > 0 ? rooms : null,
    },
    extensions,
  };
}

/**
 * The sandbox's own rows a recorded file needs beside what was learned: a departure the sandbox
 * learned may belong to a product it already held (so never learned), and a fixture file whose
 * departure names a product it lacks loads without that departure.
 */
export interface KnownRows {
  product(id: string): StoredRow | undefined;
  /** the pricing options or extensions of a product */
  ofProduct(collection: 'pricingOptions' | 'extensions', productId: string): readonly StoredRow[];
}

/** how long after a learning the file is rewritten (several learnings, one write) */
const WRITE_DELAY_MS = 250;

export class LearnedRecords {
  /** by collection name: the fixture's sections, and the pricing options and extensions their products take */
  readonly #rows = new Map<string, Map<string, StoredRow>>();
  /** rows copied from the sandbox for a learned departure (#addProduct), which the target's own replace */
  readonly #fromSandbox = new Set<string>();
  readonly #key = `tcs_test_recorded_${randomBytes(18).toString('hex')}`;
  readonly #keyId = `wkey_${randomUUID()}`;
  #timer: NodeJS.Timeout | null = null;
  #writing: Promise<void> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly workspace: { id: string; name: string; currency: string },
    private readonly origin: string,
    private readonly known: KnownRows,
  ) {}

  add(collection: string, row: StoredRow, fromSandbox = false): void {
    const productId = (row as { productId?: unknown }).productId;
    if (collection === 'departures' && typeof productId === 'string') this.#addProduct(productId);
    let rows = this.#rows.get(collection);
    if (!rows) this.#rows.set(collection, (rows = new Map()));
    if (fromSandbox) this.#fromSandbox.add(row.id);
    else {
      this.#fromSandbox.delete(row.id);
      // the target's prices or extensions of a product replace the sandbox's copies (the same codes, other ids)
      if (typeof productId === 'string' && (collection === 'pricingOptions' || collection === 'extensions')) {
        for (const [id, other] of rows) if (this.#fromSandbox.has(id) && (other as { productId?: unknown }).productId === productId) rows.delete(id);
      }
    }
    rows.set(row.id, row);
    this.#timer ??= setTimeout(() => {
      this.#timer = null;
      void this.flush().catch((err: unknown) => process.emitWarning(`parity proxy: could not write --record ${this.dir}: ${(err as Error).message}`));
    }, WRITE_DELAY_MS).unref();
  }

  /** A learned departure's product, with its prices and extensions, when it is not recorded yet. */
  #addProduct(productId: string): void {
    if (this.#rows.get('products')?.has(productId)) return;
    const product = this.known.product(productId);
    if (!product) return;
    this.add('products', product, true);
    for (const collection of ['pricingOptions', 'extensions'] as const) {
      const recorded = [...(this.#rows.get(collection)?.values() ?? [])];
      // the target's own, when the client already read them through the proxy, stay
      if (recorded.some((row) => (row as { productId?: unknown }).productId === productId)) continue;
      for (const row of this.known.ofProduct(collection, productId)) this.add(collection, row, true);
    }
  }

  /** Writes the file now (atomically: a temporary file renamed over it). */
  flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#writing = this.#writing.then(() => this.#write());
    return this.#writing;
  }

  /** the fixture file's content */
  fixture(): Record<string, unknown> {
    const sections: Record<string, unknown[]> = {};
    const skipped: string[] = [];
    const learned: Learned = (collection) => [...(this.#rows.get(collection)?.values() ?? [])];
    const products: Record<string, unknown>[] = [...(this.#rows.get('products')?.values() ?? [])];
    // a fixture workspace has one currency; its products take it
    const currency = typeof products[0]?.currency === 'string' ? products[0].currency : this.workspace.currency;
    for (const [section, spec] of Object.entries(SECTIONS) as [Section, (typeof SECTIONS)[Section]][]) {
      sections[section] = [];
      for (const row of this.#rows.get(section)?.values() ?? []) {
        const raw: Record<string, unknown> = row;
        const parsed = spec.schema.safeParse(spec.from(raw, learned));
        if (section === 'products' && raw.currency !== currency)
          skipped.push(`${row.id} (in ${String(raw.currency)}, the workspace's currency is ${currency})`);
        // a learned record is the real account's: any secret in it (a token in a form's settings) stays behind
        else if (parsed.success) sections[section]!.push(redactJson(parsed.data));
        else skipped.push(`${row.id} (${parsed.error.issues[0]?.path.join('.') || 'record'}: ${parsed.error.issues[0]?.message ?? 'invalid'})`);
      }
    }
    return {
      $comment: [
        `Recorded by sandbox proxy --record from ${this.origin}: the records the proxy learned, ids kept. Load with: sandbox start --fixtures ${this.dir}`,
        'No secret of the real account is in this file: the key below is a new sandbox key for this fixture workspace.',
        ...(skipped.length ? [`Not recorded (they do not fit the fixture format): ${skipped.join('; ')}`] : []),
      ],
      workspace: {
        id: this.workspace.id,
        name: `Recorded from ${new URL(this.origin).host}`,
        mode: 'sandbox',
        currency,
        taxRateBps: 0,
        timezone: 'UTC',
        bookingCodePrefix: 'REC',
        keys: [{ id: this.#keyId, name: 'Recorded workspace full access', key: this.#key, scopes: null }],
      },
      organizations: [],
      products: sections.products,
      collections: sections.collections,
      coupons: [],
      policies: sections.policies,
      forms: sections.forms,
      galleryFolders: [],
      webhookSubscriptions: [],
      departures: sections.departures,
      people: sections.people,
      volume: {
        products: sections.products!.length,
        departuresPerProduct: { min: 0, max: 0 },
        countries: [],
        people: 0,
        bookings: 0,
        galleryFiles: 0,
        deliveryEventDays: 0,
        emailsPerDay: 0,
      },
    };
  }

  async #write(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const file = join(this.dir, 'recorded.json');
    const temporary = `${file}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify(this.fixture(), null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, file);
  }
}

/** The row's fields that the fixture schema declares (the rest, such as timestamps, the generator fills). */
function pick(row: Record<string, unknown>, schema: z.ZodType): Record<string, unknown> {
  const shape: Record<string, unknown> = schema instanceof z.ZodObject ? schema.shape : {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) if (key in row) out[key] = row[key];
  return out;
}
