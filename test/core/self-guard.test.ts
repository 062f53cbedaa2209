import { describe, expect, it } from 'vitest';
import { SelfGuard } from '../../src/core/self-guard.ts';

describe('SelfGuard', () => {
  const guard = new SelfGuard();
  guard.listening(4010);

  it("refuses this sandbox's port on every address of this machine, and /__sandbox on any port", async () => {
    expect(await guard.urlProblem('http://127.0.0.1:4010/x')).toMatch(/this sandbox itself/);
    expect(await guard.urlProblem('http://localhost:4010/x')).toMatch(/this sandbox itself/);
    expect(await guard.urlProblem('https://[::1]:4010/x')).toMatch(/this sandbox itself/);
    expect(await guard.urlProblem('http://127.0.0.1:3000/%2F__sandbox/reset')).toMatch(/control plane/);
    expect(await guard.urlProblem('http://127.0.0.1:3000/a/%2e%2e/__SANDBOX/reset')).toMatch(/control plane/);
  });

  it('allows receivers on other ports of this machine, and other hosts', async () => {
    expect(await guard.urlProblem('http://127.0.0.1:3000/webhooks')).toBeNull();
    expect(await guard.urlProblem('http://localhost:3000/sandbox/hooks')).toBeNull();
    expect(await guard.urlProblem('https://203.0.113.7:4010/x')).toBeNull();
  });

  it('without a listening port only the control-plane path rule applies', async () => {
    const idle = new SelfGuard();
    expect(await idle.urlProblem('http://127.0.0.1:4010/x')).toBeNull();
    expect(await idle.urlProblem('http://127.0.0.1:4010/__sandbox')).toMatch(/control plane/);
  });

  it('refuses at connect time a host name that resolves to this sandbox (the DNS rebinding guard)', async () => {
    const lookup = guard.guardedLookup(4010, '/hook');
    const outcome = await new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      lookup('localhost', { all: true }, (err, address) => resolve({ err, address })),
    );
    expect(outcome.err?.code).toBe('ESANDBOXSELF');
    const other = guard.guardedLookup(3000, '/hook');
    const allowed = await new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
      other('localhost', { all: true }, (err, address) => resolve({ err, address })),
    );
    expect(allowed.err).toBeNull();
    expect(Array.isArray(allowed.address)).toBe(true);
  });
});
