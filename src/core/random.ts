/**
 * A small seeded PRNG (sfc32) for deterministic ids and choices where loading
 * faker would cost start-up time. Same seed, same sequence.
 */
const HEX = '0123456789abcdef';

export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string) {
    let h = 1779033703 ^ String(seed).length;
    for (const ch of String(seed)) {
      h = Math.imul(h ^ ch.charCodeAt(0), 3432918353);
      h = (h << 13) | (h >>> 19);
    }
    const next = () => {
      h = Math.imul(h ^ (h >>> 16), 2246822507);
      h = Math.imul(h ^ (h >>> 13), 3266489909);
      return (h ^= h >>> 16) >>> 0;
    };
    // kept as int32 (`| 0`): small-integer fields keep next() free of heap numbers; the bits,
    // and so every draw, are those of the uint32 values
    this.a = next() | 0;
    this.b = next() | 0;
    this.c = next() | 0;
    this.d = next() | 0;
  }

  /** The generator's position, to resume the same sequence later (see fixtures/prepared.ts). */
  state(): [number, number, number, number] {
    return [this.a >>> 0, this.b >>> 0, this.c >>> 0, this.d >>> 0];
  }

  /** A generator that continues from a `state()`. */
  static fromState(state: readonly number[]): SeededRandom {
    const rng = new SeededRandom(0);
    [rng.a, rng.b, rng.c, rng.d] = state.map((v) => v | 0) as [number, number, number, number];
    return rng;
  }

  /** uniform in [0, 1) */
  next(): number {
    const t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    const r = (t + this.d) | 0;
    this.c = (this.c + r) | 0;
    return (r >>> 0) / 4294967296;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** A version-4 UUID from 32 draws, one per hex digit (digit 12 is the version, 16 the variant). */
  uuid(): string {
    // A plain loop: the same draws and digits as mapping 32 draws to hex and joining them,
    // at a fraction of the cost (a large `sandbox seed` draws hundreds of thousands of ids).
    let s = '';
    for (let i = 0; i < 32; i++) {
      const digit = Math.floor(this.next() * 16);
      s += HEX[i === 12 ? 4 : i === 16 ? (digit & 0x3) | 0x8 : digit];
      if (i === 7 || i === 11 || i === 15 || i === 19) s += '-';
    }
    return s;
  }
}
