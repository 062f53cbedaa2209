import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';
import { serveAll } from '../http/route-table/serve.ts';
import { REPORT_ROUTES } from './contracts/report.ts';

/** The run report (docs/cli.md, "The run report"): GET reads the running counters, DELETE starts them again. */
export function registerReportRoutes(app: ZodApp, ctx: SandboxContext): void {
  serveAll(app, REPORT_ROUTES, {
    report: async () => ctx.runReport.build(ctx.routes.routes, ctx.webhooks.outbox.pending().length),
    clearReport: async () => {
      ctx.runReport.clear();
      return { cleared: true as const };
    },
    bundle: async (request, reply) => {
      // loaded on first use, as the control plane is: a start does not pay for it
      const { bundleBytes } = await import('../bundle/collect.ts');
      const bytes = await bundleBytes(ctx, { url: `http://${request.headers.host ?? `127.0.0.1:${ctx.options.port}`}` });
      const at = ctx.clock.iso().replace(/[:.]/g, '-');
      reply.header('content-disposition', `attachment; filename="sandbox-bundle-${at}.json.gz"`);
      return bytes;
    },
  });
}
