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
  // the report's big sibling: the whole run in one file (src/bundle/, docs/cli.md "The failure bundle")
  bundle: {
    method: 'GET',
    path: '/bundle',
    raw: 'gzip',
    data: z.string().meta({ format: 'binary' }),
    summary:
      'The failure bundle of the run so far, as a gzip file (sandbox bundle save): state, request log, deliveries, clocks, fault rules, report; secrets redacted. `sandbox open <file>` serves it',
  },
});
