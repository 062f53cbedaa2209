import { writeFile } from 'node:fs/promises';
import packageJson from '../../package.json' with { type: 'json' };
import type { ControlClient, RequestLogLine } from '../control/client.ts';
import { decodeStreamEvent } from '../core/stream-events.ts';
import { dim, green, printJson, yellow } from './output.ts';
import { plural, say } from './format.ts';
import { controlClient, type ScriptFlags } from './control.ts';

/**
 * `sandbox logs [--follow]`: the requests a running sandbox served on /v1
 * (GET /__sandbox/requests), oldest first; with --follow, then every new one
 * as it happens (the `request` events of GET /__sandbox/stream) until Ctrl+C.
 * --json prints one JSON object per line.
 */
export interface LogsFlags extends ScriptFlags {
  follow?: boolean;
  limit?: number;
  method?: string;
  status?: string;
  path?: string;
  /** write the log as HAR 1.2 to this file (src/bundle/har.ts) */
  har?: string;
}

/** The request log holds at most this many entries (src/core/request-log.ts): filters search all of them. */
const LOG_CAPACITY = 1000;

/**
 * --method, --status (404, 4xx, 5) and --path (a piece of the path, or a glob
 * with * and **), all of which must match. Checked before anything is fetched.
 */
export function requestFilter(flags: Pick<LogsFlags, 'method' | 'status' | 'path'>): (e: RequestLogLine) => boolean {
  const method = flags.method?.toUpperCase();
  const status = flags.status?.trim().toLowerCase();
  if (status !== undefined && !/^[1-5](?:\d|x){0,2}$/.test(status))
    throw new Error(`--status takes a status or a class such as 404, 4xx or 5, not "${flags.status}"`);
  const statusPrefix = status?.replace(/x+$/, '');
  const path = flags.path;
  const glob = path?.includes('*') ? globRegExp(path) : null;
  return (e) =>
    (method === undefined || e.method === method) &&
    (statusPrefix === undefined || String(e.status).startsWith(statusPrefix)) &&
    (path === undefined || (glob ? glob.test(e.path.split('?')[0]!) : e.path.includes(path)));
}

function globRegExp(glob: string): RegExp {
  const source = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((t) => t.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${source}$`);
}

export async function runLogs(flags: LogsFlags): Promise<void> {
  const matches = requestFilter(flags);
  const filtered = flags.method !== undefined || flags.status !== undefined || flags.path !== undefined;
  if (flags.har && flags.follow) throw new Error('--har writes the log as it is now; it does not follow (leave out --follow)');
  const client = await controlClient(flags);
  if (flags.har) return writeHar(flags.har, await recentOf(client, matches, filtered, flags.limit ?? LOG_CAPACITY), client.baseUrl, flags);
  const print = (entry: RequestLogLine) => {
    if (matches(entry)) flags.json ? printJson(entry) : say(requestLine(entry));
  };
  const recentMatching = (limit: number) => recentOf(client, matches, filtered, limit);
  if (!flags.follow) {
    const recent = await recentMatching(flags.limit ?? 50);
    if (recent.length === 0 && !flags.json) say(filtered ? 'No requests match' : 'No requests yet');
    for (const entry of [...recent].reverse()) print(entry);
    return;
  }
  const controller = new AbortController();
  process.once('SIGINT', () => {
    controller.abort();
    process.exit(0);
  });
  const stream = client.stream(controller.signal);
  // the stream first: a request served while the history is read is not lost
  const first = await stream.next();
  const seen = new Set<string>();
  for (const entry of [...(await recentMatching(flags.limit ?? 20))].reverse()) {
    seen.add(entry.requestId);
    print(entry);
  }
  if (!flags.json) process.stderr.write(dim(`Following ${client.baseUrl}; Ctrl+C stops\n`));
  const events = first.done ? [] : [first.value];
  for (;;) {
    for (const event of events.splice(0)) {
      const decoded = decodeStreamEvent(event.event, event.data);
      if (decoded.ok && decoded.event === 'request' && !seen.delete(decoded.payload.requestId)) print(decoded.payload);
    }
    const next = await stream.next();
    if (next.done) throw new Error(`the sandbox at ${client.baseUrl} closed the stream (stopped?)`);
    events.push(next.value);
  }
}

/** The newest `limit` requests, or with a filter, the newest `limit` of the whole log that match; newest first. */
async function recentOf(client: ControlClient, matches: (e: RequestLogLine) => boolean, filtered: boolean, limit: number): Promise<RequestLogLine[]> {
  return filtered ? (await client.requests(LOG_CAPACITY)).filter(matches).slice(0, limit) : client.requests(limit);
}

/** `--har`: the requests, oldest first, as HAR 1.2 (src/bundle/har.ts), each URL on the sandbox's. */
async function writeHar(file: string, newestFirst: RequestLogLine[], baseUrl: string, flags: LogsFlags): Promise<void> {
  const { harOf } = await import('../bundle/har.ts');
  const har = harOf([...newestFirst].reverse(), { name: 'travel-commerce-sandbox', version: packageJson.version }, baseUrl);
  await writeFile(file, `${JSON.stringify(har, null, 2)}\n`).catch((err: Error) => {
    throw new Error(`cannot write the HAR to ${file}: ${err.message}`);
  });
  if (flags.json) printJson({ har: file, entries: har.log.entries.length });
  else say(`Wrote ${plural(newestFirst.length, 'request')} to ${file} (HAR 1.2)`);
}

/**
 * time, method, path, status, latency, key prefix and, for a refusal, its
 * reason (X-Sandbox-Reason, docs/api-notes.md "Reasons") last: still one line per request, so
 * grep and --follow stay line-based. Status 0: a fault rule dropped the connection.
 */
export function requestLine(e: RequestLogLine): string {
  const status = e.status === 0 ? 'dropped' : String(e.status);
  return [
    dim(e.at),
    e.method.padEnd(6),
    e.path,
    (e.status > 0 && e.status < 400 ? green : yellow)(status),
    `${e.latencyMs < 10 ? e.latencyMs.toFixed(1) : Math.round(e.latencyMs)}ms`,
    dim(e.keyPrefix ?? '-'),
    ...(e.reason ? [yellow(e.reason)] : []),
  ].join('  ');
}
