import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LazyControlPlane } from '../../src/http/control-forward.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * The control plane is an app of its own, built on its first
 * request; the listening app hands /__sandbox requests to it whole.
 */
let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
  vi.useRealTimers();
});
const plane = (s: TestSandbox) => s.sandbox.context.controlPlane as LazyControlPlane;
const control = (method: string, path: string, opts: { body?: unknown; payload?: string; headers?: Record<string, string> } = {}) =>
  t!.request(method, `/__sandbox${path}`, { key: null, ...opts });

describe('the control plane, built on first use', () => {
  it('answers the health check without building it, with the uptime of the sandbox', async () => {
    t = await testSandbox();
    const res = await control('GET', '/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { status: 'ok', uptimeMs: expect.any(Number), now: expect.any(String) } });
    expect(res.json().data.uptimeMs).toBeGreaterThanOrEqual(0);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(plane(t).built).toBeNull();

    const workspaces = await control('GET', '/workspaces');
    expect(workspaces.statusCode).toBe(200);
    expect(plane(t).built).not.toBeNull();
  });

  it('hands over the body unread: a bad one gets the documented 400 and 413, an unknown route the 404', async () => {
    t = await testSandbox();
    const malformed = await control('POST', '/snapshots', { payload: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error).toMatch(/JSON/i);
    const huge = await control('POST', '/snapshots', { body: { name: 'x'.repeat(2 * 1024 * 1024) } });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ error: expect.stringMatching(/larger than/) });
    const missing = await control('GET', '/nothing-here');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Route GET /__sandbox/nothing-here not found' });
    expect(missing.headers['x-request-id']).toMatch(/^req_/);
    expect(missing.headers['x-ratelimit-limit']).toBeDefined();
    const created = await control('POST', '/snapshots', { body: { name: 'after' } });
    expect(created.statusCode).toBe(201);
  });

  it('echoes a caller X-Request-ID from the control app, once', async () => {
    t = await testSandbox();
    const res = await control('GET', '/workspaces', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers['x-request-id']).toBe('trace-123');
  });
});

describe('LazyControlPlane', () => {
  const fakeApp = () => ({ close: vi.fn(async () => undefined) }) as unknown as FastifyInstance;

  it('builds once, however many ask at the same time', async () => {
    const build = vi.fn(async () => fakeApp());
    const lazy = new LazyControlPlane(build);
    const [a, b] = await Promise.all([lazy.app(), lazy.app()]);
    expect(a).toBe(b);
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('tries again after a failed build', async () => {
    const build = vi.fn().mockRejectedValueOnce(new Error('boom')).mockResolvedValueOnce(fakeApp());
    const lazy = new LazyControlPlane(build);
    await expect(lazy.app()).rejects.toThrow('boom');
    await expect(lazy.app()).resolves.toBeDefined();
    expect(build).toHaveBeenCalledTimes(2);
  });

  it('prewarms after the delay, and not at all when closed first', async () => {
    vi.useFakeTimers();
    const build = vi.fn(async () => fakeApp());
    const lazy = new LazyControlPlane(build);
    lazy.prewarmAfter(100);
    await vi.advanceTimersByTimeAsync(99);
    expect(build).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(build).toHaveBeenCalledTimes(1);
    await lazy.close();
    expect((lazy.built as unknown as { close: ReturnType<typeof vi.fn> }).close).toHaveBeenCalledTimes(1);

    const closedFirst = vi.fn(async () => fakeApp());
    const other = new LazyControlPlane(closedFirst);
    other.prewarmAfter(100);
    await other.close();
    await vi.advanceTimersByTimeAsync(200);
    expect(closedFirst).not.toHaveBeenCalled();
  });
});
