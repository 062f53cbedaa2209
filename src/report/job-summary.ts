import { appendFileSync } from 'node:fs';
import type { RunReport } from './schema.ts';

/**
 * The run report as a GitHub job summary (docs/cli.md, "The GitHub job
 * summary"): short Markdown that `sandbox exec` appends to the file named by
 * GITHUB_STEP_SUMMARY, and that a stop of a detached sandbox can append too.
 * Operations called (with their statuses) and never called, refusals by
 * reason, warnings; a run that reached /v1 not once says so first.
 */
export interface JobSummaryOptions {
  /** what ran, in the heading: `sandbox exec` */
  title?: string;
  /** warning codes the user accepts (--allow-warning): listed, marked "allowed" */
  allowed?: ReadonlySet<string>;
  /** the run's exit code, when there is one */
  exitCode?: number;
  /** the failure bundle written for this run (`exec --bundle`, `stop --bundle`): the summary says how to open it */
  bundle?: string;
}

/** A table cell: no pipe or line break may end it early. */
const cell = (text: string) =>
  text
    .replace(/\\/g, '\\\\')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n]+/g, ' ');
/** Inline code; a backtick inside would close it. */
const code = (text: string) => `\`${text.replace(/`/g, "'")}\``;
const statusList = (statuses: Record<string, number>) =>
  Object.entries(statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, count]) => `${status} ×${count}`)
    .join(', ');
const plural = (n: number, one: string) => `${n.toLocaleString('en-US')} ${n === 1 ? one : `${one}s`}`;

export function jobSummaryMarkdown(report: RunReport, options: JobSummaryOptions = {}): string {
  const allowed = options.allowed ?? new Set<string>();
  const called = report.operations.filter((op) => op.operationId !== null).length;
  const total = called + report.neverCalled.length;
  const statuses: Record<string, number> = {};
  for (const op of report.operations) for (const [status, count] of Object.entries(op.statuses)) statuses[status] = (statuses[status] ?? 0) + count;

  const out = [`### Sandbox run report${options.title ? `: ${options.title}` : ''}`, ''];
  if (report.requests === 0) out.push('**⚠️ 0 requests reached /v1: this run checked nothing against the sandbox.**', '');
  const exit = options.exitCode === undefined ? '' : ` · exit ${options.exitCode}`;
  out.push(
    `**${plural(report.requests, 'request')}** to /v1${report.requests ? ` (${statusList(statuses)})` : ''} · ${called} of ${plural(total, 'operation')} called${exit}`,
    '',
  );

  if (report.operations.length > 0) {
    out.push('| Operation | Requests | Statuses | Warnings |', '| --- | ---: | --- | --- |');
    for (const op of report.operations) {
      const name = op.operationId ? `${code(op.operationId)} ${cell(`${op.method} ${op.path}`)}` : cell(`${op.method} matching no operation`);
      const warned = Object.entries(op.warnings)
        .map(([c, n]) => `${c} ×${n}${allowed.has(c) ? ' (allowed)' : ''}`)
        .join(', ');
      out.push(`| ${name} | ${op.requests} | ${statusList(op.statuses)} | ${cell(warned)} |`);
    }
    out.push('');
  }
  if (report.neverCalled.length > 0) {
    out.push(
      `<details><summary>Never called (${report.neverCalled.length})</summary>`,
      '',
      report.neverCalled.map((op) => code(op.operationId)).join(', '),
      '',
      '</details>',
      '',
    );
  }
  if (report.refusals.length > 0) {
    out.push('**Refusals by reason**', '', '| Reason | Count | Example |', '| --- | ---: | --- |');
    for (const r of report.refusals)
      out.push(`| ${code(r.code)} | ${r.count} | ${cell(`${r.example.method} ${r.example.path} → ${r.example.status}: ${r.example.reason}`)} |`);
    out.push('');
  }
  if (report.warnings.length > 0) {
    out.push('**Warnings** (accepted only by guessing)', '', '| Code | Count | Example |', '| --- | ---: | --- |');
    for (const w of report.warnings)
      out.push(
        `| ${code(w.code)}${allowed.has(w.code) ? ' (allowed)' : ''} | ${w.count} | ${cell(`${w.example.method} ${w.example.path}: ${w.example.message}`)} |`,
      );
    out.push('');
  }
  const { refused, reported } = report.rateLimits;
  if (refused + reported > 0) out.push(`Rate limits: ${refused} refused (429), ${reported} over the limit let through.`, '');
  const { sent, failed, pending } = report.webhooks;
  if (sent + failed + pending > 0) out.push(`Webhooks: ${sent} sent, ${failed} failed, ${pending} pending.`, '');
  if (options.bundle) out.push(...bundleHowTo(options.bundle));
  return `${out.join('\n')}\n`;
}

/** How to open the failure bundle on a laptop: the job's artifact, then one command (docs/cli.md, "The failure bundle"). */
export function bundleHowTo(file: string): string[] {
  const name = file.split(/[\\/]/).pop()!;
  return [
    `**Failure bundle:** ${code(file)}: this run's state, requests (with reasons), webhook deliveries and clocks, secrets redacted. Download it (the job's artifacts) and open it in the inspector:`,
    '',
    '```sh',
    `npx sandbox open ${name}`,
    '```',
    '',
  ];
}

/** Appends the summary to `file` (GITHUB_STEP_SUMMARY), after whatever earlier steps wrote there. */
export function appendJobSummary(file: string, report: RunReport, options: JobSummaryOptions = {}): void {
  appendFileSync(file, jobSummaryMarkdown(report, options));
}
