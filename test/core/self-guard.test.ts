import dns, { type LookupAddress } from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SelfGuard } from '../../src/core/self-guard.ts';

/**
 * The self-request guard (src/core/self-guard.ts): a webhook URL may not reach this sandbox's
 * port on any address of this machine, nor its control plane (/__sandbox) on any port. Below the
 * common cases: the default ports, the addresses counted as this machine, the `localhost` names,
 * the exact reasons, the decoding bound of the control-plane path and the connect-time lookup.
 */
const listeningOn = (port: number) => {
  const guard = new SelfGuard();
  guard.listening(port);
  return guard;
};

/** The problem a guarded lookup reports for a host name, and what it hands to the connector. */
function lookUp(guard: SelfGuard, host: string, all: boolean, port = 4010, path = '/hook') {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((resolve) =>
    guard.guardedLookup(port, path)(host, { all }, (err, address, family) => resolve({ err, address, family })),
  );
}

describe('SelfGuard: the common cases', () => {
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

describe('SelfGuard: which port a URL reaches', () => {
  it('a URL without a port reaches 80 for http and 443 for https', async () => {
    expect(await listeningOn(80).urlProblem('http://127.0.0.1/hook')).toBe('refused: 127.0.0.1:80 is this sandbox itself; a webhook may not call the sandbox');
    expect(await listeningOn(80).urlProblem('https://127.0.0.1/hook')).toBeNull();
    expect(await listeningOn(443).urlProblem('https://127.0.0.1/hook')).toBe(
      'refused: 127.0.0.1:443 is this sandbox itself; a webhook may not call the sandbox',
    );
    expect(await listeningOn(443).urlProblem('http://127.0.0.1/hook')).toBeNull();
  });

  it('a sandbox not listening refuses no port, not even port 0', async () => {
    const idle = new SelfGuard();
    expect(await idle.urlProblem('http://127.0.0.1:0/hook')).toBeNull();
    expect(idle.addressProblem('127.0.0.1', 0, '/hook')).toBeNull();
  });
});

describe('SelfGuard: the addresses of this machine', () => {
  const guard = listeningOn(4010);

  it('all of 127.0.0.0/8 and 0.0.0.0/8, ::1 and :: are this machine; the reason names the address', async () => {
    for (const host of ['127.0.0.1', '127.1.2.3', '127.255.255.254', '0.0.0.0', '0.1.2.3']) {
      expect(await guard.urlProblem(`http://${host}:4010/hook`)).toBe(`refused: ${host}:4010 is this sandbox itself; a webhook may not call the sandbox`);
    }
    expect(await guard.urlProblem('http://[::1]:4010/hook')).toBe('refused: ::1:4010 is this sandbox itself; a webhook may not call the sandbox');
    expect(await guard.urlProblem('http://[::]:4010/hook')).toBe('refused: :::4010 is this sandbox itself; a webhook may not call the sandbox');
    expect(await guard.urlProblem('http://[::]:3000/__sandbox/reset')).toBe(
      "refused: :: is this machine and /__sandbox is the sandbox's control plane; a webhook may not drive the sandbox",
    );
  });

  it('addresses next to those ranges are other machines', async () => {
    for (const host of ['128.0.0.1', '1.0.0.0', '126.255.255.255', '[::2]', '[1::]']) {
      expect(await guard.urlProblem(`http://${host}:4010/__sandbox/reset`)).toBeNull();
    }
  });

  it("every address of this machine's interfaces is this machine, IPv4 and IPv6", async () => {
    const guard = listeningOn(4010); // a guard of its own: the addresses are read on its first check
    const addresses = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []);
    expect(addresses.length).toBeGreaterThan(0);
    for (const { address, family } of addresses) {
      const bare = address.replace(/%.*$/, '');
      const host = family === 'IPv6' ? `[${bare}]` : bare;
      expect(await guard.urlProblem(`http://${host}:4010/hook`), address).toBe(
        `refused: ${bare}:4010 is this sandbox itself; a webhook may not call the sandbox`,
      );
    }
  });

  it('a name under .localhost, and localhost with its trailing dot, are this machine without asking DNS', async () => {
    for (const host of ['localhost', 'localhost.', 'hooks.localhost', 'a.b.localhost']) {
      expect(await guard.urlProblem(`http://${host}:4010/hook`), host).toBe(
        'refused: 127.0.0.1:4010 is this sandbox itself; a webhook may not call the sandbox',
      );
      expect(await guard.urlProblem(`http://${host}:3000/__sandbox`), host).toBe(
        "refused: 127.0.0.1 is this machine and /__sandbox is the sandbox's control plane; a webhook may not drive the sandbox",
      );
    }
    // a name that merely contains "localhost" is not one of them
    expect(await guard.urlProblem('http://localhost.invalid:4010/hook')).toBeNull();
    expect(await guard.urlProblem('http://notlocalhost.invalid:4010/hook')).toBeNull();
  });

  it('a name that does not resolve is left to the delivery-time lookup', async () => {
    expect(await guard.urlProblem('http://no-such-host.invalid:4010/__sandbox')).toBeNull();
  });

  it("a URL that does not parse is the schema's business, not the guard's", async () => {
    expect(await guard.urlProblem('not a url')).toBeNull();
  });
});

describe('SelfGuard: the control-plane path however it is spelt', () => {
  const guard = new SelfGuard();
  const refused = "refused: 127.0.0.1 is this machine and /__sandbox is the sandbox's control plane; a webhook may not drive the sandbox";

  it('the prefix itself, a path under it and a query after it are refused; a longer name is not', async () => {
    expect(await guard.urlProblem('http://127.0.0.1:3000/__sandbox')).toBe(refused);
    expect(await guard.urlProblem('http://127.0.0.1:3000/__sandbox/reset')).toBe(refused);
    expect(await guard.urlProblem('http://127.0.0.1:3000/__sandbox%3Fx=1')).toBe(refused);
    expect(await guard.urlProblem('http://127.0.0.1:3000/__sandboxes')).toBeNull();
    expect(await guard.urlProblem('http://127.0.0.1:3000/hooks/__sandbox')).toBeNull();
  });

  it('backslashes count as slashes, and dot segments and case are resolved', () => {
    expect(guard.addressProblem('127.0.0.1', 3000, '\\__sandbox\\reset')).toBe(refused);
    expect(guard.addressProblem('127.0.0.1', 3000, '/a/..\\__sandbox')).toBe(refused);
    expect(guard.addressProblem('127.0.0.1', 3000, '/x/../__SandBox/reset')).toBe(refused);
  });

  it('percent-encoding is undone up to five times over, and a path that does not decode is read as it is', () => {
    let path = '/__sandbox/reset';
    for (let times = 1; times <= 5; times++) {
      path = path.replace(/%/g, '%25').replace('__', '%5F%5F');
      expect(guard.addressProblem('127.0.0.1', 3000, path), path).toBe(refused);
    }
    // a sixth encoding is past the bound: the router decodes a path once, so it cannot reach the control plane
    path = path.replace(/%/g, '%25');
    expect(guard.addressProblem('127.0.0.1', 3000, path)).toBeNull();
    // a malformed escape stops the decoding where it is
    expect(guard.addressProblem('127.0.0.1', 3000, '/__sandbox/%E0%A4%A')).toBe(refused);
    expect(guard.addressProblem('127.0.0.1', 3000, '/%5F%5Fsandbox/%E0%A4%A')).toBeNull();
  });
});

describe('SelfGuard: the connect-time lookup', () => {
  const guard = listeningOn(4010);

  it('hands the connector every address when asked for all, the first one otherwise', async () => {
    const all = await lookUp(guard, 'localhost', true, 3000);
    expect(all.err).toBeNull();
    expect(all.address).toEqual(expect.arrayContaining([expect.objectContaining({ address: '127.0.0.1', family: 4 })]));
    const one = await lookUp(guard, 'localhost', false, 3000);
    expect(one.err).toBeNull();
    expect(typeof one.address).toBe('string');
    expect([4, 6]).toContain(one.family);
    expect((all.address as LookupAddress[])[0]).toEqual({ address: one.address, family: one.family });
  });

  it('refuses with the reason, code ESANDBOXSELF, for the port or the control-plane path', async () => {
    const port = await lookUp(guard, 'localhost', false);
    expect(port.err?.code).toBe('ESANDBOXSELF');
    expect(port.err?.message).toMatch(/^refused: (127\.0\.0\.1|::1):4010 is this sandbox itself; a webhook may not call the sandbox$/);
    const path = await lookUp(guard, 'localhost', true, 3000, '/__sandbox/reset');
    expect(path.err?.code).toBe('ESANDBOXSELF');
    expect(path.err?.message).toMatch(/is the sandbox's control plane/);
  });

  it('passes a DNS failure on as it came', async () => {
    const failed = await lookUp(guard, 'no-such-host.invalid', true);
    expect(failed.err?.code).toBe('ENOTFOUND');
    expect(failed.address).toBe('');
  });
});

describe('SelfGuard: host names, through DNS', () => {
  const realLookup = dns.lookup;
  afterEach(() => {
    dns.lookup = realLookup;
    syncBuiltinESMExports();
    vi.useRealTimers();
  });

  /** DNS as the guard sees it: `answers` for each name (never answering when null), as dns.lookup does for `all`. */
  function fakeDns(answers: Record<string, string[] | null>) {
    dns.lookup = ((
      host: string,
      options: dns.LookupOptions,
      callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      const found = answers[host];
      if (found === null) return; // a resolver that never answers
      if (found === undefined) return process.nextTick(callback, Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), '');
      const all = found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
      if (options.all) return process.nextTick(callback, null, all);
      return process.nextTick(callback, null, all[0]!.address, all[0]!.family);
    }) as typeof dns.lookup;
    syncBuiltinESMExports();
  }

  it('a name any of whose addresses is this machine is refused, with that address in the reason', async () => {
    fakeDns({ 'hooks.example': ['203.0.113.7', '127.0.0.1'], 'elsewhere.example': ['203.0.113.7', '198.51.100.2'] });
    const guard = listeningOn(4010);
    expect(await guard.urlProblem('http://hooks.example:4010/hook')).toBe('refused: 127.0.0.1:4010 is this sandbox itself; a webhook may not call the sandbox');
    expect(await guard.urlProblem('http://hooks.example:3000/__sandbox/reset')).toBe(
      "refused: 127.0.0.1 is this machine and /__sandbox is the sandbox's control plane; a webhook may not drive the sandbox",
    );
    expect(await guard.urlProblem('http://hooks.example:3000/hook')).toBeNull();
    expect(await guard.urlProblem('http://elsewhere.example:4010/__sandbox')).toBeNull();
  });

  it('a resolver that has not answered after 1 s (fake timers) leaves the name to the delivery-time lookup', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    fakeDns({ 'slow.example': null });
    let answer: string | null | undefined;
    const checked = listeningOn(4010)
      .urlProblem('http://slow.example:4010/__sandbox')
      .then((problem) => (answer = problem));
    await vi.advanceTimersByTimeAsync(999);
    expect(answer).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await checked;
    expect(answer).toBeNull();
  });
});
