import { appendJobSummary, type JobSummaryOptions } from '../report/job-summary.ts';
import type { RunReport } from '../report/schema.ts';
import { plural } from './format.ts';
import { xml } from './xml-text.ts';

/**
 * How `sandbox exec` shows the run report (docs/cli.md, "The run
 * report"): a summary of about 15 lines for stderr, and JUnit XML for CI
 * systems (one test case per /v1 operation, failed where a warning fired,
 * skipped where never called). `allowed` holds the warning codes a user
 * accepts (`--allow-warning`): still shown, marked, and failing no test case.
 */
const TOP_OPERATIONS = 6;
/** never-called operations named on their one line before "+N more" */
const NEVER_CALLED_NAMED = 6;

const statusList = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .map(([status, count]) => `${status} x${count}`)
    .join(', ');

const operationName = (op: RunReport['operations'][number]) => op.operationId ?? `${op.method} (no such operation)`;

export function summaryLines(report: RunReport, allowed: ReadonlySet<string> = new Set()): string[] {
  const called = report.operations.filter((op) => op.operationId !== null).length;
  const total = called + report.neverCalled.length;
  const statuses: Record<string, number> = {};
  for (const op of report.operations) for (const [status, count] of Object.entries(op.statuses)) statuses[status] = (statuses[status] ?? 0) + count;
  const sorted = Object.fromEntries(Object.entries(statuses).sort(([a], [b]) => Number(a) - Number(b)));
  const lines = [
    `sandbox: ${plural(report.requests, 'request')} to /v1${report.requests ? ` (${statusList(sorted)})` : ''}; ${called} of ${plural(total, 'operation')} called`,
  ];
  const width = Math.max(0, ...report.operations.slice(0, TOP_OPERATIONS).map((op) => operationName(op).length));
  for (const op of report.operations.slice(0, TOP_OPERATIONS))
    lines.push(`  ${operationName(op).padEnd(width)}  ${String(op.requests).padStart(5)}  ${statusList(op.statuses)}`);
  if (report.operations.length > TOP_OPERATIONS) lines.push(`  ... and ${plural(report.operations.length - TOP_OPERATIONS, 'more operation')}`);
  if (report.neverCalled.length > 0) {
    const named = report.neverCalled
      .slice(0, NEVER_CALLED_NAMED)
      .map((op) => op.operationId)
      .join(', ');
    const more = report.neverCalled.length > NEVER_CALLED_NAMED ? `, +${report.neverCalled.length - NEVER_CALLED_NAMED} more` : '';
    lines.push(`never called (${report.neverCalled.length}): ${named}${more}`);
  }
  for (const w of report.warnings.slice(0, 3))
    lines.push(`warning ${w.code} x${w.count}${allowed.has(w.code) ? ' (allowed)' : ''}, e.g. ${w.example.method} ${w.example.path} (${w.example.requestId})`);
  if (report.warnings.length > 3) lines.push(`  ... and ${plural(report.warnings.length - 3, 'more warning code')}`);
  if (report.refusals.length > 0) lines.push(`refusals: ${report.refusals.map((r) => `${r.code} x${r.count}`).join(', ')}`);
  if (report.rateLimits.refused + report.rateLimits.reported > 0) {
    lines.push(`rate limits: ${report.rateLimits.refused} refused (429), ${report.rateLimits.reported} over the limit let through (not enforced)`);
  }
  const { sent, failed, pending } = report.webhooks;
  if (sent + failed + pending > 0) lines.push(`webhooks: ${sent} sent, ${failed} failed, ${pending} pending`);
  return lines;
}

/** JUnit XML as Jenkins, GitLab and GitHub's test reporters read it. */
export function junitXml(report: RunReport, allowed: ReadonlySet<string> = new Set()): string {
  const cases: string[] = [];
  let failures = 0;
  for (const op of report.operations) {
    const name = op.operationId ? `${op.operationId} (${op.method} ${op.path})` : `${op.method} under /v1 matching no operation`;
    const accepted = Object.entries(op.warnings).filter(([code]) => allowed.has(code));
    const acceptedText = accepted.length ? `; allowed warnings: ${accepted.map(([code, count]) => `${code} x${count}`).join(', ')}` : '';
    const out = `<system-out>${xml(`${plural(op.requests, 'request')}: ${statusList(op.statuses)}${acceptedText}`)}</system-out>`;
    const warned = Object.entries(op.warnings).filter(([code]) => !allowed.has(code));
    if (warned.length === 0) {
      cases.push(`    <testcase classname="sandbox.v1" name="${xml(name)}">${out}</testcase>`);
      continue;
    }
    failures += 1;
    const codes = warned.map(([code, count]) => `${code} x${count}`).join(', ');
    const examples = warned.map(([code]) => report.warnings.find((w) => w.code === code)).filter((w) => w !== undefined);
    const detail = examples.map((w) => `${w.code}: ${w.example.message} (e.g. ${w.example.method} ${w.example.path}, ${w.example.requestId})`).join('\n');
    cases.push(
      `    <testcase classname="sandbox.v1" name="${xml(name)}"><failure type="X-Sandbox-Warning" message="${xml(`accepted only by guessing: ${codes}`)}">${xml(detail)}</failure>${out}</testcase>`,
    );
  }
  for (const op of report.neverCalled) {
    cases.push(
      `    <testcase classname="sandbox.v1" name="${xml(`${op.operationId} (${op.method} ${op.path})`)}"><skipped message="never called"/></testcase>`,
    );
  }
  const counts = `tests="${cases.length}" failures="${failures}" errors="0" skipped="${report.neverCalled.length}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="travel-commerce-sandbox" ${counts}>`,
    `  <testsuite name="sandbox /v1 operations" ${counts} timestamp="${xml(report.since)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/**
 * The GitHub job summary of a run (docs/cli.md, "The GitHub job summary"): appended to the file
 * GITHUB_STEP_SUMMARY names when it is set, as `exec` and `stop --report` both end a run. Returns
 * the line for stderr when the file cannot be written, else null.
 */
export function appendStepSummary(report: RunReport, options: JobSummaryOptions): string | null {
  const file = process.env.GITHUB_STEP_SUMMARY;
  if (!file) return null;
  try {
    appendJobSummary(file, report, options);
    return null;
  } catch (err) {
    return `sandbox: cannot append the job summary to ${file}: ${(err as Error).message}`;
  }
}
