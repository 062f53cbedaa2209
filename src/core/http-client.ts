/**
 * undici, loaded on first use rather than at start-up (about 50 ms). In the
 * esbuild bundle a lazily imported CommonJS module exposes only `default`, so
 * `request` is read from either place; a plain destructured import would be
 * undefined there.
 */
export async function undiciRequest(): Promise<typeof import('undici').request> {
  const mod = await import('undici');
  return mod.request ?? mod.default.request;
}

/** An undici connection pool whose DNS lookups go through `lookup` (used to refuse some addresses at connect time). */
export async function undiciAgentWithLookup(lookup: unknown): Promise<import('undici').Dispatcher> {
  const mod = await import('undici');
  const Agent = mod.Agent ?? mod.default.Agent;
  return new Agent({ connect: { lookup } as Record<string, unknown> });
}
