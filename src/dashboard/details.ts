import { cell, clockTime, latency, prettyBody, type Tone } from './format.ts';
import { attemptCount } from './state.ts';
import type { DeliveryView, DomainEventRow, RateBucket, RequestRow } from './types.ts';

/** Words to lines of at most `width` characters (a longer word is cut). */
function wrapText(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = '';
    }
    line = line ? `${line} ${word}` : word.slice(0, width);
  }
  if (line) out.push(line);
  return out;
}

/** One line of a details view: text and an optional tone; `heading` lines are bold. */
export interface DetailLine {
  text: string;
  tone?: Tone;
  heading?: boolean;
}

const heading = (text: string): DetailLine => ({ text, heading: true });
const plain = (text: string): DetailLine => ({ text });

function headerLines(headers: Record<string, string>, width: number): DetailLine[] {
  const lines = Object.entries(headers).map(([name, value]) => plain(cell(`  ${name}: ${value}`, width).trimEnd()));
  return lines.length ? lines : [plain('  (none)')];
}

function bodyLines(body: string | null, truncated: boolean, width: number): DetailLine[] {
  return prettyBody(body, width - 2, 10_000, truncated).map((l) => plain(`  ${l}`));
}

/**
 * Shares `budget` lines among sections: each first gets up to 2 lines, then
 * the rest goes one line at a time to the sections that still have more.
 */
export function fitSections(needs: number[], budget: number): number[] {
  const given = needs.map((n) => Math.min(n, 2));
  let left = budget - given.reduce((a, b) => a + b, 0);
  while (left > 0 && given.some((g, i) => g < needs[i]!)) {
    for (let i = 0; i < needs.length && left > 0; i++) {
      if (given[i]! < needs[i]!) {
        given[i]! += 1;
        left -= 1;
      }
    }
  }
  return given;
}

function clip(lines: DetailLine[], count: number): DetailLine[] {
  if (lines.length <= count) return lines;
  const kept = lines.slice(0, Math.max(0, count - 1));
  kept.push(plain(`  … ${lines.length - kept.length} more lines`));
  return kept;
}

/**
 * A request's details: the summary, then request headers and body and
 * response headers and body, pretty-printed and fitted into `height` lines.
 */
export function requestDetailLines(r: RequestRow, width: number, height: number, names: Record<string, string>): DetailLine[] {
  const summary = `${r.method} ${r.path} → ${r.status}  ${latency(r.latencyMs)}  at ${clockTime(r.at)}  workspace ${r.workspaceId ? (names[r.workspaceId] ?? r.workspaceId) : '-'}  key ${r.keyPrefix ?? '-'}  ${r.requestId}`;
  const lines: DetailLine[] = [{ text: summary, heading: true }];
  // why the sandbox refused it (X-Sandbox-Reason, docs/api-notes.md "Reasons"), wrapped: it is the point
  if (r.reason) for (const text of wrapText(`why: ${r.reason}`, width)) lines.push({ text, tone: 'red' });
  // accepted only by guessing (X-Sandbox-Warning, docs/api-notes.md "Warnings")
  for (const w of r.warnings ?? []) lines.push({ text: cell(`warning ${w.code}: ${w.message}`, width).trimEnd(), tone: 'yellow' });
  if (!r.detail) {
    lines.push(plain(''), plain('Headers and bodies are captured only while a dashboard watches the stream;'), plain('this request came before it attached.'));
    return lines;
  }
  const { request: req, response: res } = r.detail;
  const sections: [string, DetailLine[]][] = [
    ['Request headers', headerLines(req.headers, width)],
    ['Request body', bodyLines(req.body, req.truncated, width)],
    [`Response headers (${r.status})`, headerLines(res.headers, width)],
    ['Response body', bodyLines(res.body, res.truncated, width)],
  ];
  const sizes = fitSections(
    sections.map(([, l]) => l.length),
    Math.max(4, height - lines.length - sections.length),
  );
  sections.forEach(([title, body], i) => lines.push(heading(title), ...clip(body, sizes[i]!)));
  return lines;
}

export function deliveryDetailLines(d: DeliveryView, width: number, height: number): DetailLine[] {
  const last = d.attempts[d.attempts.length - 1];
  const lines: DetailLine[] = [
    heading(`${d.eventType}  ${d.id}  ${d.status}${d.reason ? ` (${d.reason})` : ''}`),
    plain(`target ${last?.request?.url ?? '(not sent yet)'}`),
    plain(`event ${d.eventId}  subscription ${d.subscriptionId}  next retry ${d.nextAttemptAt ?? '-'}`),
    ...(d.fault ? wrapText(`fault: ${d.fault.summary}`, width).map((text): DetailLine => ({ text, tone: 'magenta' })) : []),
    heading(`Attempts (${attemptCount(d)})`),
  ];
  const attemptRows = Math.max(1, Math.floor((height - 8) / 2));
  for (const a of d.attempts.slice(-attemptRows)) {
    const status = a.response ? String(a.response.status) : 'no response';
    lines.push({
      text: cell(`  #${a.number} ${a.trigger.padEnd(7)} ${clockTime(a.at)}  ${status}  ${latency(a.latencyMs)}  ${a.error ?? ''}`, width).trimEnd(),
      tone: a.response && a.response.status < 300 ? 'green' : 'red',
    });
  }
  if (last?.response) {
    lines.push(
      heading('Last response body'),
      ...prettyBody(last.response.bodyExcerpt, width - 2, Math.max(1, height - lines.length - 2)).map((l) => plain(`  ${l}`)),
    );
  }
  lines.push(plain(''), plain('r replays this delivery now (same webhook-id).'));
  return lines;
}

export function eventDetailLines(e: DomainEventRow, width: number, height: number): DetailLine[] {
  return [
    heading(`${e.type}  ${e.id}`),
    plain(`workspace ${e.workspaceId}  at ${e.createdAt}`),
    heading('Data'),
    ...prettyBody(JSON.stringify(e.data), width - 2, Math.max(1, height - 4)).map((l) => plain(`  ${l}`)),
  ];
}

export function bucketDetailLines(b: RateBucket): DetailLine[] {
  return [
    heading(`${b.bucket}`),
    plain(`minute quota: ${b.remaining} of ${b.limit} left; window resets ${b.reset === null ? '(not started)' : new Date(b.reset * 1000).toISOString()}`),
    plain(`burst bucket: ${b.burstTokens} of ${b.burst} tokens${b.perSecond ? `; ${b.perSecond} requests per second` : ''}`),
  ];
}

/** The details of the selected row of `panel`, fitted to `body`. */
export function detailsFor(
  panel: 'requests' | 'deliveries' | 'rateLimits' | 'events',
  rows: { requests: RequestRow[]; deliveries: DeliveryView[]; rateLimits: RateBucket[]; events: DomainEventRow[] },
  selected: Record<typeof panel, number>,
  names: Record<string, string>,
  body: { width: number; height: number },
): DetailLine[] {
  const none = [plain('Nothing selected. Esc goes back.')];
  switch (panel) {
    case 'requests': {
      const r = rows.requests[selected.requests];
      return r ? requestDetailLines(r, body.width, body.height, names) : none;
    }
    case 'deliveries': {
      const d = rows.deliveries[selected.deliveries];
      return d ? deliveryDetailLines(d, body.width, body.height) : none;
    }
    case 'rateLimits': {
      const b = rows.rateLimits[selected.rateLimits];
      return b ? bucketDetailLines(b) : none;
    }
    case 'events': {
      const e = rows.events[selected.events];
      return e ? eventDetailLines(e, body.width, body.height) : none;
    }
  }
}
