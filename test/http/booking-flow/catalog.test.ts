import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Collection } from '../../../src/resources/catalog/schemas.ts';
import { ExtensionListSchema, PricingOptionListSchema } from '../../../src/resources/catalog/requests.ts';
import type { Product } from '../../../src/resources/products/schemas.ts';
import type { Row } from '../../../src/storage/types.ts';
import type { TestSandbox } from '../../helpers/sandbox.ts';
import { book, orgKey, pickDeparture, setup } from './helpers.ts';

/** Catalog browsing (API description, "Products", "Collections") and organization-key product limits. */
let t: TestSandbox;
beforeAll(async () => {
  t = await setup();
});
afterAll(() => t.sandbox.stop());

const ws = () => t.liveWorkspaceId;
const collectionNamed = (slug: string) => t.sandbox.store.list<Collection>('collections', ws()).find((c) => c.slug === slug)!;
const matches = async (id: string, key?: string) => {
  const res = await t.request('GET', `/v1/collections/${id}/matches`, key ? { key } : {});
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().items as { productId: string }[]).map((i) => i.productId);
};
const products = () => t.sandbox.store.list<Product>('products', ws());

describe('GET /v1/products/:id/pricing/options and /extensions', () => {
  it('lists prices per passenger type, room supplements and add-ons with prices, in {data}', async () => {
    const { product, options, extensions } = pickDeparture(t, { rooms: true, extensions: 1 });
    const res = await t.request('GET', `/v1/products/${product.id}/pricing/options`);
    const listed = PricingOptionListSchema.parse(res.json()).data;
    expect(listed.map((o) => o.id).sort()).toEqual(
      options
        .filter((o) => o.active)
        .map((o) => o.id)
        .sort(),
    );
    expect(listed[0]).toMatchObject({ kind: 'passenger', code: 'adult', amount: product.priceFrom, currency: 'EUR' });
    expect(listed.some((o) => o.kind === 'room' && o.code === 'single' && o.amount > 0)).toBe(true);
    const ext = ExtensionListSchema.parse((await t.request('GET', `/v1/products/${product.id}/extensions`)).json()).data;
    expect(ext.map((e) => e.id).sort()).toEqual(extensions.map((e) => e.id).sort());
    expect(ext.every((e) => Number.isInteger(e.amount) && e.productId === product.id)).toBe(true);
  });

  it('unknown product 404, wrong prefix 400', async () => {
    expect((await t.request('GET', '/v1/products/prod_00000000-0000-4000-8000-000000000000/extensions')).json()).toEqual({ error: 'Product not found' });
    expect((await t.request('GET', '/v1/products/col_00000000-0000-4000-8000-000000000000/pricing/options')).statusCode).toBe(400);
  });
});

describe('GET /v1/collections/:id/matches', () => {
  it('evaluates rules against the catalog: country + status, tags, price ranges', async () => {
    const iceland = await matches(collectionNamed('iceland-adventures').id);
    const expected = products()
      .filter((p) => p.destination.country === 'IS' && p.status === 'active')
      .map((p) => p.id);
    expect(iceland.sort()).toEqual(expected.sort());
    const lights = await matches(collectionNamed('northern-lights').id);
    expect(lights.sort()).toEqual(
      products()
        .filter((p) => p.tags.includes('northern-lights'))
        .map((p) => p.id)
        .sort(),
    );
    const short = await matches(collectionNamed('short-breaks').id);
    expect(short.length).toBeGreaterThan(0);
    for (const id of short) expect(products().find((p) => p.id === id)!.durationDays).toBeLessThanOrEqual(3);
  });

  it('follows live changes to a product', async () => {
    const col = collectionNamed('iceland-adventures');
    const outsider = products().find((p) => p.destination.country !== 'IS' && p.status === 'active')!;
    expect(await matches(col.id)).not.toContain(outsider.id);
    const moved = { ...outsider, destination: { ...outsider.destination, country: 'IS' } } as unknown as Row;
    await t.sandbox.store.commit([{ type: 'put', collection: 'products', workspaceId: ws(), row: moved }]);
    expect(await matches(col.id)).toContain(outsider.id);
    await t.sandbox.store.commit([{ type: 'put', collection: 'products', workspaceId: ws(), row: { ...moved, status: 'archived' } }]);
    expect(await matches(col.id)).not.toContain(outsider.id);
  });

  it('unknown collection 404, wrong prefix 400', async () => {
    expect((await t.request('GET', '/v1/collections/col_00000000-0000-4000-8000-000000000000/matches')).json()).toEqual({ error: 'Collection not found' });
    expect((await t.request('GET', '/v1/collections/prod_00000000-0000-4000-8000-000000000000/matches')).statusCode).toBe(400);
  });
});

describe('organization keys limited to products', () => {
  it('never see other products in matches, prices, departures or bookings', async () => {
    const col = collectionNamed('northern-lights');
    const all = await matches(col.id);
    expect(all.length).toBeGreaterThan(1);
    const allowed = all[0]!;
    const key = await orgKey(t, { scopes: ['products:read', 'bookings:read', 'bookings:write'], productIds: [allowed] });
    expect(await matches(col.id, key)).toEqual([allowed]);
    expect((await t.request('GET', `/v1/products/${all[1]}/pricing/options`, { key })).statusCode).toBe(404);
    const hidden = t.sandbox.store.list<{ id: string; productId: string }>('departures', ws()).find((d) => d.productId !== allowed)!;
    expect((await t.request('GET', `/v1/departures/${hidden.id}`, { key })).json()).toEqual({ error: 'Departure not found' });
    expect((await book(t, { departureId: hidden.id, adults: 1 }, key)).statusCode).toBe(404);
    const listed = (await t.request('GET', '/v1/bookings?limit=100', { key })).json();
    expect(listed.data.every((b: { productId: string }) => b.productId === allowed)).toBe(true);
    const foreignBooking = t.sandbox.store.list<{ id: string; productId: string }>('bookings', ws()).find((b) => b.productId !== allowed)!;
    expect((await t.request('GET', `/v1/bookings/${foreignBooking.id}`, { key })).statusCode).toBe(404);
  });
});
