import type { ProxyOptions } from '../config.ts';
import type { Sandbox } from '../sandbox.ts';
import { startProxy, type ProxyHandle } from './proxy.ts';

/**
 * createSandbox({proxy}) and `sandbox proxy` start the proxy here, with the
 * recorder that compares the two answers (unless one was set on
 * ctx.parity.recorder before, as tests do).
 */
export async function startParityProxy(sandbox: Sandbox, options: ProxyOptions): Promise<ProxyHandle> {
  return startProxy(sandbox, options);
}
