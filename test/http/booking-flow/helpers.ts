import { expect } from 'vitest';
import type { DomainEvent } from '../../../src/core/events.ts';
import type { Extension, PricingOption } from '../../../src/resources/catalog/schemas.ts';
import type { Departure } from '../../../src/resources/departures/schemas.ts';
import type { Person } from '../../../src/resources/people/schemas.ts';
import type { Product } from '../../../src/resources/products/schemas.ts';
import type { Row } from '../../../src/storage/types.ts';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';

/** Shared set-up for the booking-flow tests: fixture look-ups through the store, people through the control plane. */
export const setup = () => testSandbox({ enforceRateLimits: false });

export interface Pick {
  departure: Departure;
  product: Product;
  options: PricingOption[];
  extensions: Extension[];
}

export interface PickOptions {
  rooms?: boolean;
  children?: boolean;
  extensions?: number;
  /** an active per-person add-on that several travellers can take */
  perPersonAddon?: boolean;
  minSeats?: number;
  exclude?: readonly string[];
}

/** A bookable fixture departure whose product has what the test needs. */
export function pickDeparture(t: TestSandbox, want: PickOptions = {}, ws = t.liveWorkspaceId): Pick {
  const { store } = t.sandbox;
  const today = t.sandbox.clock.iso().slice(0, 10);
  for (const departure of store.list<Departure>('departures', ws)) {
    if (!['scheduled', 'guaranteed'].includes(departure.status) || departure.startDate < today) continue;
    if (departure.seatsLeft < (want.minSeats ?? 4) || want.exclude?.includes(departure.id)) continue;
    const product = store.get<Product>('products', ws, departure.productId)!;
    if (product.status !== 'active') continue;
    const options = store.list<PricingOption>('pricingOptions', ws).filter((o) => o.productId === product.id);
    const extensions = store.list<Extension>('extensions', ws).filter((e) => e.productId === product.id && e.active);
    const hasRooms = options.some((o) => o.kind === 'room');
    if (want.rooms !== undefined && hasRooms !== want.rooms) continue;
    if (want.children && !options.some((o) => o.code === 'child')) continue;
    if (extensions.length < (want.extensions ?? 0)) continue;
    if (want.perPersonAddon && !extensions.some((e) => e.pricingUnit === 'per_person' && e.maxQuantity >= 4)) continue;
    return { departure, product, options, extensions };
  }
  throw new Error(`no fixture departure matches ${JSON.stringify(want)}`);
}

/** Sets a departure's seats directly (test arrangement only). */
export async function setSeats(t: TestSandbox, departure: Departure, seatsLeft: number, status: Departure['status'] = departure.status) {
  const row = { ...departure, seatsLeft, status } as unknown as Row;
  await t.sandbox.store.commit([{ type: 'put', collection: 'departures', workspaceId: t.liveWorkspaceId, row }]);
}

export const departureNow = (t: TestSandbox, id: string, ws = t.liveWorkspaceId) => t.sandbox.store.get<Departure>('departures', ws, id)!;

let n = 0;
export async function createPerson(t: TestSandbox, fields: Partial<Person> = {}, ws = t.liveWorkspaceId): Promise<Person> {
  n += 1;
  const body = { firstName: 'Ada', middleName: 'Maria', lastName: `Lovelace${n}`, email: `ada.lovelace${n}.test@example.org`, ...fields };
  const res = await t.request('POST', `/__sandbox/workspaces/${ws}/people`, { key: null, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as Person;
}

/** Domain events emitted from now on. */
export function recordEvents(t: TestSandbox): DomainEvent[] {
  const events: DomainEvent[] = [];
  t.sandbox.events.on('domain', (e) => events.push(e));
  return events;
}

export async function book(t: TestSandbox, body: Record<string, unknown>, key?: string) {
  return t.request('POST', '/v1/bookings', { body, ...(key ? { key } : {}) });
}

/** Issues an organization key through the API (API description, "Organization API keys"). */
export async function orgKey(t: TestSandbox, body: Record<string, unknown>): Promise<string> {
  const orgs = t.sandbox.store.list<{ id: string }>('organizations', t.liveWorkspaceId);
  const res = await t.request('POST', `/v1/organizations/${orgs[0]!.id}/api-keys`, { body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.key as string;
}
