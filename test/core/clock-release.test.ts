import { AsyncLocalStorage } from 'node:async_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testSandbox } from '../helpers/sandbox.ts';

/**
 * Node 20 keeps every AsyncLocalStorage that has run once, and runs each on every promise the
 * process creates until it is disabled: a process that made and stopped many sandboxes paid for
 * all of them (src/core/clock.ts, release()). Node has no public count of them, so the test
 * follows run() and disable() on the prototype.
 */
describe('a stopped sandbox', () => {
  afterEach(() => vi.restoreAllMocks());

  it('leaves no AsyncLocalStorage of its own enabled', async () => {
    const enabled = new Set<AsyncLocalStorage<unknown>>();
    const { run, disable } = AsyncLocalStorage.prototype;
    vi.spyOn(AsyncLocalStorage.prototype, 'run').mockImplementation(function (
      this: AsyncLocalStorage<unknown>,
      store: unknown,
      fn: (...args: unknown[]) => unknown,
      ...args: unknown[]
    ) {
      enabled.add(this);
      return run.call(this, store, fn, ...args);
    });
    vi.spyOn(AsyncLocalStorage.prototype, 'disable').mockImplementation(function (this: AsyncLocalStorage<unknown>) {
      enabled.delete(this);
      return disable.call(this);
    });
    // a first sandbox enables what a process keeps once (the commit groups of src/storage/commit-group.ts)
    const first = await testSandbox();
    await first.request('POST', '/v1/forms', { body: { name: 'Warm-up' } });
    await first.sandbox.stop();
    const kept = enabled.size;
    for (let i = 0; i < 3; i++) {
      const t = await testSandbox();
      expect((await t.request('GET', '/v1/products?limit=1')).statusCode).toBe(200);
      await t.request('POST', '/v1/forms', { body: { name: `Form ${i}` } });
      await t.request('POST', '/__sandbox/clock/advance', { key: null, body: { workspaceId: t.liveWorkspaceId, by: '1h' } });
      await t.sandbox.stop();
    }
    expect(enabled.size).toBe(kept);
  });
});
