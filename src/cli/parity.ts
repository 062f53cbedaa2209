import { writeFileSync } from 'node:fs';
import type { ParityReport } from '../control/client.ts';
import { ControlPlaneError } from '../control/client.ts';
import { controlClient, type ScriptFlags } from './control.ts';
import { plural, say, table } from './format.ts';
import { printJson } from './output.ts';
import { xml } from './xml-text.ts';

/**
 * `sandbox parity`: the parity report of a running `sandbox proxy` (GET /__sandbox/parity;
 * docs/parity.md, "Reading the report"): a short table, most frequent first, by default;
 * `--json` the report as it is; `--markdown` a table for a pull request or a job summary;
 * `--junit <file>` one failing testcase per difference. It exits 1 when there is drift
 * (any difference but `unknown-id`, which is data), so that CI fails on drift.
 */
export interface ParityFlags extends ScriptFlags {
  junit?: string;
  markdown?: boolean;
  /** rows of the default table; the rest are counted */
  limit?: number;
}
type Difference = ParityReport['differences'][number];
type NotCompared = NonNullable<ParityReport['notCompared']>[number];

/** the default table's rows: "a short table" */
const DEFAULT_ROWS = 20;
const CELL = 48;

export async function runParity(flags: ParityFlags): Promise<void> {
  if (flags.json && flags.markdown) throw new Error('name --json or --markdown, not both');
  const client = await controlClient(flags);
  let report: ParityReport;
  try {
    report = await client.parity();
  } catch (err) {
    // the reason says how to start a proxy; the bare 404 message would not
    if (err instanceof ControlPlaneError && err.status === 404)
      throw new Error(`${flags.url} is not a parity proxy: start one with \`sandbox proxy --target <url>\` and pass its URL as --url`);
    throw err;
  }
  if (flags.junit !== undefined) {
    try {
      writeFileSync(flags.junit, parityJunit(report));
    } catch (err) {
      throw new Error(`cannot write the JUnit report to ${flags.junit}: ${(err as Error).message}`);
    }
  }
  if (flags.json) printJson(report);
  else say(flags.markdown ? parityMarkdown(report) : parityTable(report, flags.limit ?? DEFAULT_ROWS));
  if (drift(report).length > 0) process.exitCode = 1;
}

const drift = (report: ParityReport): Difference[] => report.differences.filter((d) => d.kind !== 'unknown-id');
const unknownIds = (report: ParityReport): Difference[] => report.differences.filter((d) => d.kind === 'unknown-id');

/** A value or type as a cell: strings as they are, the rest as JSON, cut to one short line. */
export function cell(value: unknown, width = CELL): string {
  const text = (typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))).replace(/\s+/g, ' ');
  return text.length > width ? `${text.slice(0, width - 1)}…` : text;
}

const operation = (d: Difference): string => `${d.method} ${d.path}`;

function summary(report: ParityReport): string {
  const lines = drift(report);
  const head = `${plural(report.compared, 'request')} compared of ${report.requests} forwarded: ${lines.length === 0 ? 'no drift' : plural(lines.length, 'difference')}`;
  const omitted = report.omitted ? `; ${report.omitted} more not kept (the report holds 2,000 differences)` : '';
  return `${head}${omitted}`;
}

function unknownLine(report: ParityReport): string | null {
  const unknown = unknownIds(report);
  if (unknown.length === 0) return null;
  const ids = unknown.reduce((sum, d) => sum + d.count, 0);
  return `Unknown to the sandbox (data, not drift): ${plural(ids, 'id')} it could not learn, on ${unknown.map((d) => `${operation(d)} (${d.count}, e.g. ${cell(d.target, 40)})`).join(', ')}`;
}

/** One line per (reason, operation) of the requests not compared, never drift: `Not compared: GET /v1/exports/{id} (2, the first req_1): too large to compare: ...`. */
function notComparedLines(report: ParityReport): string[] {
  return (report.notCompared ?? []).map((n) => `Not compared: ${n.method} ${n.path} (${n.count}, the first ${n.requestId}): ${n.detail}`);
}

/** The default output: one summary line, the most frequent differences, the unknown ids apart. */
export function parityTable(report: ParityReport, rows = DEFAULT_ROWS): string {
  const lines = drift(report);
  const out = [summary(report)];
  if (lines.length > 0) {
    out.push(
      '',
      table(
        ['COUNT', 'KIND', 'OPERATION', 'FIELD', 'TARGET', 'SANDBOX', 'FIRST REQUEST'],
        lines.slice(0, rows).map((d) => [String(d.count), d.kind, operation(d), d.field, cell(d.target), cell(d.sandbox), d.requestId]),
      ).trimEnd(),
    );
    if (lines.length > rows) out.push(`… and ${plural(lines.length - rows, 'more difference')} (--json or --markdown for all)`);
  }
  const unknown = unknownLine(report);
  if (unknown) out.push('', unknown);
  const skipped = notComparedLines(report);
  if (skipped.length > 0) out.push('', ...skipped);
  return `${out.join('\n')}\n`;
}

const mdCell = (text: string): string => text.replace(/\|/g, '\\|').replace(/`/g, "'");

/** Every difference as a Markdown table (a pull request, $GITHUB_STEP_SUMMARY). */
export function parityMarkdown(report: ParityReport): string {
  const out = ['## Parity: the sandbox against the target', '', summary(report)];
  const lines = drift(report);
  if (lines.length > 0) {
    out.push('', '| Count | Kind | Operation | Field | Target | Sandbox | First request |', '|---:|---|---|---|---|---|---|');
    for (const d of lines)
      out.push(
        `| ${d.count} | ${d.kind} | \`${mdCell(operation(d))}\` | ${d.field ? `\`${mdCell(d.field)}\`` : ''} | ${mdCell(cell(d.target))} | ${mdCell(cell(d.sandbox))} | ${mdCell(d.requestId)} |`,
      );
  }
  const unknown = unknownLine(report);
  if (unknown) out.push('', mdCell(unknown));
  const skipped = notComparedLines(report);
  if (skipped.length > 0) out.push('', ...skipped.map((line) => `- ${mdCell(line)}`));
  return `${out.join('\n')}\n`;
}

/**
 * JUnit XML: one failing testcase per difference; the unknown ids (data, not drift) in a suite
 * of their own, skipped, never failing, and so are the requests not compared (with their reasons); with
 * no drift, one passing testcase that says how many requests were compared, so that the report
 * is never empty.
 */
export function parityJunit(report: ParityReport): string {
  const lines = drift(report);
  const testcase = (d: Difference, inner: string) =>
    `    <testcase classname="parity.${d.kind}" name="${xml(`${operation(d)}${d.field ? ` ${d.field}` : ''}`)}">${inner}</testcase>`;
  const cases = lines.map((d) =>
    testcase(
      d,
      `<failure type="${d.kind}" message="${xml(`target: ${cell(d.target, 200)}; sandbox: ${cell(d.sandbox, 200)}`)}">${xml(`${plural(d.count, 'request')}, the first ${d.requestId} (sandbox parity; GET /__sandbox/parity/examples/${d.requestId})`)}</failure>`,
    ),
  );
  if (cases.length === 0) cases.push(`    <testcase classname="parity" name="${xml(summary(report))}"/>`);
  const unknown = unknownIds(report).map((d) =>
    testcase(d, `<skipped message="${xml(`data, not drift: ${plural(d.count, 'id')} unknown to the sandbox, e.g. ${cell(d.target, 200)}`)}"/>`),
  );
  const notCompared = (report.notCompared ?? []).map(
    (n: NotCompared) =>
      `    <testcase classname="parity.not-compared.${n.reason}" name="${xml(`${n.method} ${n.path}`)}"><skipped message="${xml(`${n.detail} (${plural(n.count, 'request')}, the first ${n.requestId})`)}"/></testcase>`,
  );
  const suite = (name: string, body: string[], failures: number, skipped: number) => [
    `  <testsuite name="${name}" tests="${body.length}" failures="${failures}" errors="0" skipped="${skipped}">`,
    ...body,
    '  </testsuite>',
  ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="travel-commerce-sandbox parity" tests="${cases.length + unknown.length + notCompared.length}" failures="${lines.length}" errors="0" skipped="${unknown.length + notCompared.length}">`,
    ...suite('parity: drift between the target and the sandbox', cases, lines.length, 0),
    ...(unknown.length > 0 ? suite('parity: ids unknown to the sandbox (data, not drift)', unknown, 0, unknown.length) : []),
    ...(notCompared.length > 0 ? suite('parity: requests not compared', notCompared, 0, notCompared.length) : []),
    '</testsuites>',
    '',
  ].join('\n');
}
