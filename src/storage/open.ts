import type { OpenedInstrumentedStore, OpenStoreOptions } from './types.ts';

/**
 * Opens a store (open-store.ts). The engine behind it (the store, its files, lowdb and the
 * large-file tier) is loaded by the first open, not by every module that imports storage for a
 * type, a collection's declaration or a helper: the package's entry declares collections, and a
 * test worker that imports it for `workerSandbox` never opens a store itself.
 */
export async function openStore(options: OpenStoreOptions = {}): Promise<OpenedInstrumentedStore> {
  const engine = await import('./open-store.ts');
  return engine.openStore(options);
}
