import type { ProxyOptions } from '../config.ts';
import { startProxy, type ProxyHandle, type ProxyHost } from './proxy.ts';
import { createParityRecorder } from './report.ts';

/**
 * createSandbox({proxy}) and `sandbox proxy` start the proxy here, with the
 * recorder that compares the two answers (src/parity/report.ts), unless one was
 * set on ctx.parity.recorder before.
 */
export async function startParityProxy(sandbox: ProxyHost, options: ProxyOptions): Promise<ProxyHandle> {
  return startProxy(sandbox, options, () => createParityRecorder({ ignore: options.ignore, routes: sandbox.context.routes }));
}
