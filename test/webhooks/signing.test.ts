import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, signatureHeaders, wallClockSeconds } from '../../src/webhooks/signing.ts';

describe('webhook signing (Standard Webhooks)', () => {
  it('makes whsec_ secrets of 32 random bytes and v1 signatures the reference verifier accepts', () => {
    const secret = newWebhookSecret();
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    const body = '{"a":1}';
    const headers = signatureHeaders(secret, 'dlv_1', Math.floor(Date.now() / 1000), body);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual({ a: 1 });
    expect(() => new Webhook(secret).verify('{"a":2}', { ...headers })).toThrow();
  });

  it('the signature timestamp is the wall clock in whole Unix seconds', () => {
    const before = Math.floor(Date.now() / 1000);
    const seconds = wallClockSeconds();
    const after = Math.floor(Date.now() / 1000);
    expect(Number.isInteger(seconds)).toBe(true);
    expect(seconds).toBeGreaterThanOrEqual(before);
    expect(seconds).toBeLessThanOrEqual(after);
  });

  it('the headers carry the id and the timestamp the signature covers', () => {
    const secret = newWebhookSecret();
    const seconds = wallClockSeconds();
    const headers = signatureHeaders(secret, 'dlv_7', seconds, '{}');
    expect(headers['webhook-id']).toBe('dlv_7');
    expect(headers['webhook-timestamp']).toBe(String(seconds));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() => new Webhook(secret).verify('{}', { ...headers, 'webhook-id': 'dlv_8' })).toThrow();
    expect(() => new Webhook(secret).verify('{}', { ...headers, 'webhook-timestamp': String(seconds - 1) })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify('{}', { ...headers })).toThrow();
  });

  it('each secret is new', () => {
    expect(newWebhookSecret()).not.toBe(newWebhookSecret());
  });
});
