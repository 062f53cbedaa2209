import { z } from 'zod';
import { RunReportSchema } from '../../report/schema.ts';
import { defineRoutes } from '../../http/route-table/contract.ts';

/** The run report (docs/cli.md, "The run report"): its shape is src/report/schema.ts, its counters src/report/run-report.ts. */
export const REPORT_ROUTES = defineRoutes({
  report: {
    method: 'GET',
    path: '/report',
    data: RunReportSchema,
    summary: 'What the /v1 API was asked since the start: by operation and status, never called, warnings, refusals, deliveries',
  },
  clearReport: { method: 'DELETE', path: '/report', data: z.object({ cleared: z.literal(true) }), summary: 'Start the run report again from zero' },
});
