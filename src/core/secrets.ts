import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Key secrets are stored only as SHA-256 hashes and compared in constant time
 * (developers' guide, "Secure by default"). Keys are high-entropy random
 * strings, so a fast hash is the right tool; a password KDF would only slow
 * every request.
 */
export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** Cryptographically secure random string over [a-zA-Z0-9], without modulo bias. */
export function randomToken(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}
