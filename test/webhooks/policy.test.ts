import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/catalogue.ts';
import { eventNameProblem, matchesNoKnownEvent, matchesPattern } from '../../src/webhooks/matching.ts';
import { classify, parseRetryAfter, RETRY_SCHEDULE_MS, retryDelayMs } from '../../src/webhooks/retry-policy.ts';
import { newWebhookSecret, signatureHeaders } from '../../src/webhooks/signing.ts';

describe('retry policy', () => {
  it('follows the documented schedule with at most ±10 % deterministic jitter', () => {
    expect(RETRY_SCHEDULE_MS.map((ms) => ms / 1000)).toEqual([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400, 86400]);
    RETRY_SCHEDULE_MS.forEach((base, i) => {
      const delay = retryDelayMs(i + 1, 'dlv_a');
      expect(Math.abs(delay - base)).toBeLessThanOrEqual(base * 0.1);
      expect(retryDelayMs(i + 1, 'dlv_a')).toBe(delay);
    });
    expect(new Set(['dlv_a', 'dlv_b', 'dlv_c', 'dlv_d'].map((seed) => retryDelayMs(3, seed))).size).toBeGreaterThan(1);
  });

  it('scales the schedule down (webhookRetryScale)', () => {
    expect(retryDelayMs(4, 'dlv_a', 0.01)).toBe(Math.round(retryDelayMs(4, 'dlv_a') / 100));
  });

  it('parses Retry-After as seconds or an HTTP date relative to the response Date', () => {
    expect(parseRetryAfter('120', undefined)).toBe(120_000);
    expect(parseRetryAfter('Wed, 21 Oct 2026 07:30:00 GMT', 'Wed, 21 Oct 2026 07:28:00 GMT')).toBe(120_000);
    expect(parseRetryAfter('soon', undefined)).toBeNull();
    expect(parseRetryAfter('999999999', undefined)).toBe(24 * 3_600_000);
  });

  it('counts only 2xx as success; 410 is gone; 3xx, 4xx, 5xx and no response are retryable', () => {
    expect([200, 204, 299].map(classify)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(classify(410)).toBe('gone');
    expect([301, 302, 400, 429, 500, 503, null].map(classify).every((o) => o === 'retryable')).toBe(true);
  });
});

describe('event patterns', () => {
  it.each([
    ['*', 'gallery.file.deleted', true],
    ['booking.*', 'booking.created', true],
    ['booking.*', 'payment.succeeded', false],
    ['gallery.*', 'gallery.file.deleted', true],
    ['booking.created', 'booking.created', true],
    ['booking.created', 'booking.cancelled', false],
    ['book*', 'booking.created', false],
  ])('%s matches %s: %s', (pattern, type, expected) => expect(matchesPattern(pattern, type)).toBe(expected));

  it('accepts every well-formed name or pattern, refuses malformed ones', () => {
    for (const type of WEBHOOK_EVENT_TYPES) expect(eventNameProblem(type)).toBeNull();
    for (const ok of ['*', 'booking.*', 'gallery.*', 'gallery.file.*', 'booking.refunded', 'invoice.*', 'product.deleted'])
      expect(eventNameProblem(ok)).toBeNull();
    for (const bad of ['booking', '', 'Booking.Created', 'booking..created', 'booking.*.x', '*.created', 'booking.created '])
      expect(eventNameProblem(bad)).not.toBeNull();
  });

  it('tells which well-formed entries match nothing the sandbox emits', () => {
    for (const known of [...WEBHOOK_EVENT_TYPES, '*', 'booking.*', 'gallery.file.*']) expect(matchesNoKnownEvent(known)).toBe(false);
    for (const unknown of ['booking.refunded', 'product.deleted', 'booking.confirmed', 'invoice.*']) expect(matchesNoKnownEvent(unknown)).toBe(true);
  });
});

describe('signing', () => {
  it('makes whsec_ secrets of 32 random bytes and v1 signatures the reference verifier accepts', () => {
    const secret = newWebhookSecret();
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const body = '{"a":1}';
    const headers = signatureHeaders(secret, 'dlv_1', Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual({ a: 1 });
    expect(() => new Webhook(secret).verify('{"a":2}', { ...headers })).toThrow();
  });
});

describe('measureWebhookLatency', () => {
  it('emits count events to a local receiver and reports median and p99', async () => {
    const { measureWebhookLatency } = await import('../../bench/webhook-latency.ts');
    const result = await measureWebhookLatency(20);
    expect(result.count).toBe(20);
    expect(result.medianMs).toBeGreaterThan(0);
    expect(result.p99Ms).toBeGreaterThanOrEqual(result.medianMs);
  });
});
