/**
 * Id pairing for the parity proxy (docs/parity.md): when the target and the sandbox
 * both answer a create, each assigned its own ids. The ids found at the same
 * JSON path of both answers are paired, target -> sandbox, so that a later
 * request carrying the target's id (in its path, query or body) reaches the
 * sandbox with the sandbox's id and state flows on both sides.
 */

/** A key that names an id: `id`, `bookingId`, `person_id`, `productIds`. */
const ID_KEY = /^(?:id|.*(?:Id|_id|Ids|_ids))$/;

/**
 * Pairs kept at most: everything a client can grow is bounded. Past it the oldest pair goes
 * (a Map keeps insertion order, and a pair used again is moved to the end): a request carrying a
 * forgotten target id then reaches the sandbox unmapped, an `unknown-id`, never a crash.
 */
export const MAX_ID_PAIRS = 100_000;

export class IdPairs {
  readonly #toSandbox = new Map<string, string>();

  constructor(private readonly max = MAX_ID_PAIRS) {}

  get size(): number {
    return this.#toSandbox.size;
  }

  /** a reset took the sandbox's side of every pair away */
  clear(): void {
    this.#toSandbox.clear();
  }

  sandboxIdOf(targetId: string): string | undefined {
    const paired = this.#toSandbox.get(targetId);
    if (paired !== undefined) {
      // most recently used last, so the bound drops the pairs not used for longest
      this.#toSandbox.delete(targetId);
      this.#toSandbox.set(targetId, paired);
    }
    return paired;
  }

  /** Pairs the ids at the same JSON paths of two answers of one create; returns how many new pairs. */
  pairFrom(target: unknown, sandbox: unknown): number {
    let added = 0;
    walkPair(target, sandbox, false, (targetId, sandboxId) => {
      if (targetId === sandboxId || this.#toSandbox.get(targetId) === sandboxId) return;
      this.#toSandbox.delete(targetId);
      this.#toSandbox.set(targetId, sandboxId);
      if (this.#toSandbox.size > this.max) this.#toSandbox.delete(this.#toSandbox.keys().next().value!);
      added += 1;
    });
    return added;
  }

  /** The request path with each paired target id replaced (one path segment is one id). */
  mapPath(path: string): string {
    if (this.#toSandbox.size === 0) return path;
    return path
      .split('/')
      .map((segment) => {
        const decoded = safeDecode(segment);
        const paired = decoded === null ? undefined : this.#toSandbox.get(decoded);
        return paired === undefined ? segment : encodeURIComponent(paired);
      })
      .join('/');
  }

  /** The query string (without `?`) with each paired value replaced. */
  mapQuery(query: string): string {
    if (this.#toSandbox.size === 0 || query === '') return query;
    const params = new URLSearchParams(query);
    let changed = false;
    for (const [name, value] of [...params]) {
      const paired = this.#toSandbox.get(value);
      if (paired !== undefined) {
        params.set(name, paired);
        changed = true;
      }
    }
    return changed ? params.toString() : query;
  }

  /** A copy of a JSON body with every string that is a paired target id replaced, wherever it is. */
  mapBody(body: unknown): unknown {
    if (this.#toSandbox.size === 0) return body;
    const walk = (value: unknown): unknown => {
      if (typeof value === 'string') return this.#toSandbox.get(value) ?? value;
      if (Array.isArray(value)) return value.map(walk);
      if (value !== null && typeof value === 'object') {
        const out: Record<string, unknown> = {};
        for (const [key, inner] of Object.entries(value)) out[key] = walk(inner);
        return out;
      }
      return value;
    };
    return walk(body);
  }
}

/**
 * Walks both answers in step. Arrays are paired by position (a create's answer
 * lists what it created in the order of the request, on both sides); only
 * strings under id keys are paired, never codes or names.
 */
function walkPair(target: unknown, sandbox: unknown, underIdKey: boolean, pair: (targetId: string, sandboxId: string) => void): void {
  if (typeof target === 'string' && typeof sandbox === 'string') {
    if (underIdKey) pair(target, sandbox);
    return;
  }
  if (Array.isArray(target) && Array.isArray(sandbox)) {
    const n = Math.min(target.length, sandbox.length);
    for (let i = 0; i < n; i++) walkPair(target[i], sandbox[i], underIdKey, pair);
    return;
  }
  if (isObject(target) && isObject(sandbox)) {
    for (const [key, value] of Object.entries(target)) {
      if (key in sandbox) walkPair(value, sandbox[key], ID_KEY.test(key), pair);
    }
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
