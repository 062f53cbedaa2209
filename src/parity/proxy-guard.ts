import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import type { SelfGuard } from '../core/self-guard.ts';

/**
 * The self-request guard for the proxy's connections to its target (docs/parity.md;
 * src/core/self-guard.ts): at connect time, after DNS, an address that is this
 * sandbox's port or the proxy's own is refused, so a target name that later
 * resolves here (DNS rebinding) cannot make the proxy call itself in a loop.
 * An IP literal is checked once, when the proxy starts.
 */
export function proxyLookup(guards: readonly SelfGuard[], target: URL) {
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  return (
    hostname: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err, '');
      for (const { address } of found) {
        for (const guard of guards) {
          const problem = guard.addressProblem(address, port, '/v1');
          if (problem) return callback(Object.assign(new Error(problem), { code: 'ESANDBOXSELF' }), '');
        }
      }
      if (options.all) return callback(null, found);
      const first = found[0]!;
      return callback(null, first.address, first.family);
    });
  };
}
