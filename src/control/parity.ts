import type { SandboxContext } from '../context.ts';
import { notFound } from '../core/errors.ts';
import type { ParityRecorder } from '../parity/types.ts';
import type { ZodApp } from '../http/zod-app.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { PARITY_ROUTES } from './contracts/parity.ts';

/**
 * The parity report (docs/parity.md, "Reading the report"): what `sandbox proxy` found
 * between the target and the sandbox. A sandbox that is not a parity proxy has no report: 404
 * with the way to start one.
 */
export function registerParityRoutes(app: ZodApp, ctx: SandboxContext): void {
  const recorder = (): ParityRecorder => {
    const found = ctx.parity.recorder;
    if (!found)
      throw notFound('Parity report').because('NOT_A_PROXY', 'this sandbox is not running as a parity proxy: start it with `sandbox proxy --target <url>`');
    return found;
  };
  serveAll(app, PARITY_ROUTES, {
    parity: async () => recorder().report(),
    parityExample: async (request) => {
      const example = recorder().example(request.params.requestId);
      if (!example)
        throw notFound('Parity example').because(
          'NOT_FOUND',
          `no example has the request id ${request.params.requestId}: only the first exchange of each difference is kept (GET /__sandbox/parity lists their request ids)`,
        );
      return example;
    },
    clearParity: async () => {
      recorder().clear();
      return { cleared: true as const };
    },
  });
}
