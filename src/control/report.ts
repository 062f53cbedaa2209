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
  });
}
