import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { posix } from 'node:path';
import { CONTROL_PREFIX } from './paths.ts';

/**
 * Keeps webhooks from driving the sandbox itself (docs/webhooks.md, "Receivers
 * on this machine"). Loopback receivers are the product, so they stay allowed;
 * refused are URLs that reach this sandbox's own port on any address of this
 * machine, and URLs under /__sandbox on any address of this machine, however
 * the host or path is spelt (`2130706433`, `[::ffff:7f00:1]`, `%5F%5Fsandbox`).
 * Checked when a subscription is saved and again, after DNS, at every delivery,
 * so a name that later resolves to this machine (DNS rebinding) is refused too.
 */
export class SelfGuard {
  #port = 0;
  #local: BlockList | null = null;

  /** The sandbox is listening on this port (0: not listening, only the path rule applies). */
  listening(port: number): void {
    this.#port = port;
  }

  /** Why a webhook URL may not be used, or null. Resolves host names (1 s at most). */
  async urlProblem(raw: string): Promise<string | null> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return null; // shape errors are the schema's business
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const addresses = isIP(host) ? [host] : await resolve(host);
    for (const address of addresses) {
      const problem = this.addressProblem(address, port, url.pathname);
      if (problem) return problem;
    }
    return null;
  }

  /** Why a connection to this address and port, for this path, is refused; or null. */
  addressProblem(address: string, port: number, path: string): string | null {
    if (!this.isThisMachine(address)) return null;
    if (underControlPlane(path))
      return `refused: ${address} is this machine and ${CONTROL_PREFIX} is the sandbox's control plane; a webhook may not drive the sandbox`;
    if (this.#port !== 0 && port === this.#port) return `refused: ${address}:${port} is this sandbox itself; a webhook may not call the sandbox`;
    return null;
  }

  /**
   * A DNS lookup for undici's connector that refuses this sandbox's own
   * address at connect time (after the check at the start of the attempt), so
   * a name cannot resolve elsewhere first and here second.
   */
  guardedLookup(port: number, path: string) {
    return (
      hostname: string,
      options: LookupOptions,
      callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      dnsLookup(hostname, { ...options, all: true }, (err, found) => {
        if (err) return callback(err, '');
        for (const { address } of found) {
          const problem = this.addressProblem(address, port, path);
          if (problem) return callback(Object.assign(new Error(problem), { code: 'ESANDBOXSELF' }), '');
        }
        if (options.all) return callback(null, found);
        const first = found[0]!;
        return callback(null, first.address, first.family);
      });
    };
  }

  private isThisMachine(address: string): boolean {
    this.#local ??= localAddresses();
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    return this.#local.check(address, family);
  }
}

/** Loopback, the unspecified addresses (a connect to 0.0.0.0 reaches this host) and every interface's address. */
function localAddresses(): BlockList {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addSubnet('0.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  list.addAddress('::', 'ipv6');
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) list.addAddress(entry.address.replace(/%.*$/, ''), entry.family === 'IPv6' ? 'ipv6' : 'ipv4');
  }
  return list;
}

/** The path as the router would see it: percent-decoded until stable, dot segments and `//` resolved. */
function underControlPlane(rawPath: string): boolean {
  let path = rawPath;
  for (let i = 0; i < 5; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      break;
    }
    if (decoded === path) break;
    path = decoded;
  }
  const normalized = posix.normalize(`/${path.replace(/\\/g, '/')}`).toLowerCase();
  return normalized === CONTROL_PREFIX || normalized.startsWith(`${CONTROL_PREFIX}/`) || normalized.startsWith(`${CONTROL_PREFIX}?`);
}

async function resolve(host: string): Promise<string[]> {
  if (host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.') return ['127.0.0.1', '::1'];
  const lookup = new Promise<string[]>((done) => {
    dnsLookup(host, { all: true }, (err, found) => done(err ? [] : found.map((f) => f.address)));
  });
  // an unresolvable name is not refused here: the delivery-time lookup guards it
  const timeout = new Promise<string[]>((done) => setTimeout(() => done([]), 1000).unref());
  return Promise.race([lookup, timeout]);
}
