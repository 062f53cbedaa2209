import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Coupon, Extension, PricingOption } from '../../src/resources/catalog/schemas.ts';
import { buildQuote, couponDiscount, divRound, line, quoteLines, taxFor } from '../../src/resources/departures/quote-arithmetic.ts';

/**
 * Quote arithmetic in integer minor units (src/resources/departures/quote-arithmetic.ts):
 * rounding half up, coupons, taxes on the
 * discounted subtotal, and the lines of a party.
 */
const coupon = (over: Partial<Coupon>): Coupon => ({
  id: 'cpn_1',
  code: 'SAVE',
  kind: 'percent',
  value: 10,
  currency: null,
  active: true,
  validUntil: null,
  ...over,
});

const option = (over: Partial<PricingOption>): PricingOption => ({
  id: 'p_1',
  productId: 'prod_1',
  kind: 'passenger',
  code: 'adult',
  name: 'Adult',
  amount: 10_000,
  currency: 'EUR',
  minAge: null,
  maxAge: null,
  occupancy: null,
  active: true,
  ...over,
});

const extension = (over: Partial<Extension>): Extension => ({
  id: 'ext_1',
  productId: 'prod_1',
  code: 'bike',
  name: 'Bike hire',
  description: '',
  amount: 2_500,
  currency: 'EUR',
  pricingUnit: 'per_unit',
  maxQuantity: 5,
  active: true,
  ...over,
});

describe('rounding', () => {
  it('divRound rounds half up', () => {
    expect(divRound(0, 100)).toBe(0);
    expect(divRound(49, 100)).toBe(0);
    expect(divRound(50, 100)).toBe(1);
    expect(divRound(149, 100)).toBe(1);
    expect(divRound(150, 100)).toBe(2);
    expect(divRound(7, 2)).toBe(4);
    expect(divRound(5, 3)).toBe(2);
    expect(divRound(4, 3)).toBe(1);
  });

  it('divRound is the nearest integer, halves up, for any non-negative amount', () => {
    fc.assert(
      fc.property(fc.nat(10_000_000), fc.integer({ min: 1, max: 20_000 }), (n, d) => {
        expect(divRound(n, d)).toBe(Math.round(n / d));
      }),
    );
  });

  it('taxes are basis points of the amount, rounded half up', () => {
    expect(taxFor(10_000, 2_000)).toBe(2_000);
    expect(taxFor(333, 1_000)).toBe(33);
    expect(taxFor(335, 1_000)).toBe(34);
    expect(taxFor(5, 1_000)).toBe(1);
    expect(taxFor(4, 1_000)).toBe(0);
    expect(taxFor(12_345, 0)).toBe(0);
  });
});

describe('coupons', () => {
  it('none, or an inactive one, takes nothing off', () => {
    expect(couponDiscount(null, 10_000, 'EUR')).toBe(0);
    expect(couponDiscount(coupon({ active: false }), 10_000, 'EUR')).toBe(0);
    expect(couponDiscount(coupon({ kind: 'fixed', value: 500, currency: 'EUR', active: false }), 10_000, 'EUR')).toBe(0);
  });

  it('a percent coupon takes its share, rounded half up, never more than the subtotal', () => {
    expect(couponDiscount(coupon({ value: 10 }), 10_000, 'EUR')).toBe(1_000);
    expect(couponDiscount(coupon({ value: 15 }), 1_003, 'EUR')).toBe(150);
    expect(couponDiscount(coupon({ value: 15 }), 1_010, 'EUR')).toBe(152);
    expect(couponDiscount(coupon({ value: 100 }), 999, 'EUR')).toBe(999);
    // the percent coupon ignores currency
    expect(couponDiscount(coupon({ value: 10, currency: 'USD' }), 10_000, 'EUR')).toBe(1_000);
  });

  it('a fixed coupon takes its amount in its own currency only, never more than the subtotal', () => {
    expect(couponDiscount(coupon({ kind: 'fixed', value: 500, currency: 'EUR' }), 10_000, 'EUR')).toBe(500);
    expect(couponDiscount(coupon({ kind: 'fixed', value: 500, currency: 'EUR' }), 300, 'EUR')).toBe(300);
    expect(couponDiscount(coupon({ kind: 'fixed', value: 500, currency: 'USD' }), 10_000, 'EUR')).toBe(0);
  });
});

describe('the quote', () => {
  const lines = [line('adult', 'Adult', 2, 10_000), line('ext:bike', 'Bike', 3, 1_001)];

  it('a line is quantity × unit amount', () => {
    expect(line('child', 'Child: Tour', 3, 4_500)).toEqual({ code: 'child', description: 'Child: Tour', quantity: 3, unitAmount: 4_500, amount: 13_500 });
  });

  it('taxes come on top of the discounted subtotal', () => {
    const quote = buildQuote(lines, { currency: 'EUR', coupon: coupon({ value: 10 }), taxRateBps: 1_000, quotedAt: '2026-01-01T00:00:00.000Z' });
    expect(quote).toEqual({
      currency: 'EUR',
      lines,
      subtotal: 23_003,
      discounts: 2_300,
      taxes: 2_070,
      total: 22_773,
      couponCode: 'SAVE',
      quotedAt: '2026-01-01T00:00:00.000Z',
    });
  });

  it('the coupon code is named only when it took something off', () => {
    const base = { currency: 'EUR', taxRateBps: 0, quotedAt: 'q' };
    expect(buildQuote(lines, { ...base, coupon: null }).couponCode).toBeNull();
    expect(buildQuote(lines, { ...base, coupon: coupon({ active: false }) }).couponCode).toBeNull();
    expect(buildQuote(lines, { ...base, coupon: coupon({ kind: 'fixed', value: 100, currency: 'USD' }) }).couponCode).toBeNull();
    const quote = buildQuote(lines, { ...base, coupon: coupon({ kind: 'fixed', value: 100, currency: 'EUR', code: 'FLAT' }) });
    expect(quote).toMatchObject({ couponCode: 'FLAT', discounts: 100, taxes: 0, total: 22_903 });
  });

  it('total = subtotal − discounts + taxes, never negative, for any lines', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ q: fc.integer({ min: 1, max: 9 }), u: fc.nat(100_000) }), { maxLength: 6 }),
        fc.integer({ min: 1, max: 100 }),
        fc.nat(3_000),
        (raw, percent, bps) => {
          const ls = raw.map((r, i) => line(`l${i}`, 'x', r.q, r.u));
          const quote = buildQuote(ls, { currency: 'EUR', coupon: coupon({ value: percent }), taxRateBps: bps, quotedAt: 'q' });
          const subtotal = raw.reduce((sum, r) => sum + r.q * r.u, 0);
          expect(quote.subtotal).toBe(subtotal);
          expect(quote.discounts).toBe(divRound(subtotal * percent, 100));
          expect(quote.taxes).toBe(divRound((subtotal - quote.discounts) * bps, 10_000));
          expect(quote.total).toBe(subtotal - quote.discounts + quote.taxes);
          expect(quote.total).toBeGreaterThanOrEqual(0);
        },
      ),
    );
  });
});

describe('the lines of a party', () => {
  const options = [
    option({ code: 'adult', name: 'Adult', amount: 10_000 }),
    option({ id: 'p_2', code: 'child', name: 'Child', amount: 6_000 }),
    option({ id: 'p_3', code: 'infant', name: 'Infant', amount: 0 }),
    option({ id: 'p_4', kind: 'room', code: 'single', name: 'Single room', amount: 3_000, occupancy: 1 }),
    option({ id: 'p_5', kind: 'room', code: 'double', name: 'Double room', amount: 0, occupancy: 2 }),
  ];

  it('one line per passenger type present, then the room supplement, then each extension', () => {
    const lines = quoteLines(
      options,
      { adults: 2, children: 1, infants: 1 },
      { option: options[3]!, rooms: 2 },
      [{ extension: extension({}), quantity: 3 }],
      'Tour, 1 May',
    );
    expect(lines).toEqual([
      { code: 'adult', description: 'Adult: Tour, 1 May', quantity: 2, unitAmount: 10_000, amount: 20_000 },
      { code: 'child', description: 'Child: Tour, 1 May', quantity: 1, unitAmount: 6_000, amount: 6_000 },
      { code: 'infant', description: 'Infant: Tour, 1 May', quantity: 1, unitAmount: 0, amount: 0 },
      { code: 'room:single', description: 'Single room: Tour, 1 May', quantity: 2, unitAmount: 3_000, amount: 6_000 },
      { code: 'ext:bike', description: 'Bike hire', quantity: 3, unitAmount: 2_500, amount: 7_500 },
    ]);
  });

  it('no line for a type with nobody, nor for a room without supplement', () => {
    const lines = quoteLines(options, { adults: 0, children: 2, infants: 0 }, { option: options[4]!, rooms: 1 }, [], 'Tour');
    expect(lines.map((l) => l.code)).toEqual(['child']);
    expect(quoteLines(options, { adults: 1, children: 0, infants: 0 }, null, [], 'Tour').map((l) => l.code)).toEqual(['adult']);
  });

  it('takes the active passenger option of the type, never a room or an inactive one', () => {
    const mixed = [
      option({ id: 'p_9', code: 'adult', name: 'Old adult', amount: 1, active: false }),
      option({ id: 'p_8', kind: 'room', code: 'adult' as PricingOption['code'], name: 'Room named adult', amount: 2 }),
      option({ code: 'child', name: 'Child', amount: 3 }),
      option({ code: 'adult', name: 'Adult', amount: 10_000 }),
    ];
    expect(quoteLines(mixed, { adults: 1, children: 0, infants: 0 }, null, [], 'T')).toEqual([
      { code: 'adult', description: 'Adult: T', quantity: 1, unitAmount: 10_000, amount: 10_000 },
    ]);
  });

  it('a type with people but no active option is an error that names it', () => {
    const adultsOnly = [option({})];
    expect(() => quoteLines(adultsOnly, { adults: 1, children: 1, infants: 0 }, null, [], 'Tour, 1 May')).toThrow(
      'no active child pricing option for Tour, 1 May',
    );
    expect(() => quoteLines(adultsOnly, { adults: 0, children: 0, infants: 2 }, null, [], 'T')).toThrow('no active infant pricing option for T');
  });
});
