import type { RequestLogLine } from '../control/client.ts';
import { dim, green, printJson, yellow } from './output.ts';
import { say, type ScriptFlags } from './format.ts';
import { controlClient } from './trigger.ts';

/**
 * `sandbox logs [--follow]`: the requests a running sandbox served on /v1
 * (GET /__sandbox/requests), oldest first; with --follow, then every new one
 * as it happens (the `request` events of GET /__sandbox/stream) until Ctrl+C.
 * --json prints one JSON object per line.
 */
export interface LogsFlags extends ScriptFlags {
  follow?: boolean;
  limit?: number;
}

export async function runLogs(flags: LogsFlags): Promise<void> {
  const client = controlClient(flags);
  const print = (entry: RequestLogLine) => (flags.json ? printJson(entry) : say(requestLine(entry)));
  if (!flags.follow) {
    const recent = await client.requests(flags.limit ?? 50);
    if (recent.length === 0 && !flags.json) say('No requests yet');
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
  for (const entry of [...(await client.requests(flags.limit ?? 20))].reverse()) {
    seen.add(entry.requestId);
    print(entry);
  }
  if (!flags.json) process.stderr.write(dim(`Following ${client.baseUrl}; Ctrl+C stops\n`));
  const events = first.done ? [] : [first.value];
  for (;;) {
    for (const event of events.splice(0)) {
      if (event.event !== 'request') continue;
      const entry = JSON.parse(event.data) as RequestLogLine;
      if (!seen.delete(entry.requestId)) print(entry);
    }
    const next = await stream.next();
    if (next.done) throw new Error(`the sandbox at ${client.baseUrl} closed the stream (stopped?)`);
    events.push(next.value);
  }
}

/** time, method, path, status, latency, key prefix */
export function requestLine(e: RequestLogLine): string {
  const status = String(e.status);
  return [
    dim(e.at),
    e.method.padEnd(6),
    e.path,
    (e.status < 400 ? green : yellow)(status),
    `${e.latencyMs < 10 ? e.latencyMs.toFixed(1) : Math.round(e.latencyMs)}ms`,
    dim(e.keyPrefix ?? '-'),
  ].join('  ');
}
