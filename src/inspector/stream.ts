import { authHeaders } from './api.ts';

/**
 * The live stream (GET /__sandbox/stream, Server-Sent Events). Read with
 * fetch, not EventSource: EventSource cannot send the X-Sandbox-Token header,
 * and the token must never go in a query string (docs/inspector.md, "How it is built"). Reconnects after
 * the server's `retry` (1 s) when the stream ends or fails, until stopped.
 */
export type StreamHandler = (event: string, data: unknown) => void;
/** the stream's event names a view may ask for (`?events=`): it gets those only, and `hello` */
export type StreamEvent = 'request' | 'domain' | 'delivery' | 'rate-limit' | 'reset';

/** `capture: false`: the view never opens a request's details, so the sandbox keeps none for it (capture=off). */
export function openStream(
  events: readonly StreamEvent[],
  onEvent: StreamHandler,
  onState: (connected: boolean) => void = () => undefined,
  options: { capture?: boolean } = {},
): () => void {
  const controller = new AbortController();
  let stopped = false;
  const run = async (): Promise<void> => {
    while (!stopped) {
      try {
        // events: what the view shows, so the sandbox builds nothing else for it (the rate-limit change of
        // every /v1 request, a capture of each); detail=none: a request's headers and bodies are read when it
        // is opened (GET /__sandbox/requests/:id); requests=batched: a write's requests come as one
        // `requests` array, one JSON parse for hundreds (so /v1 throughput holds with a page open)
        const query = `events=${events.join(',')}&detail=none&requests=batched${options.capture === false ? '&capture=off' : ''}`;
        const response = await fetch(`/__sandbox/stream?${query}`, { headers: { ...authHeaders, accept: 'text/event-stream' }, signal: controller.signal });
        if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
        onState(true);
        await readEvents(response.body, onEvent);
      } catch {
        if (stopped) return;
      }
      onState(false);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}

async function readEvents(body: ReadableStream<Uint8Array>, onEvent: StreamHandler): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    // one cut per chunk, not one per frame: a chunk of a busy second holds hundreds of frames
    let start = 0;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n', start)) {
      dispatch(buffer.slice(start, end), onEvent);
      start = end + 2;
    }
    buffer = buffer.slice(start);
  }
}

function dispatch(frame: string, onEvent: StreamHandler): void {
  let event = 'message';
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length === 0) return;
  try {
    const parsed: unknown = JSON.parse(data.join('\n'));
    // a write's requests come as one table (requests=batched): handed on one by one, as `request`
    if (event === 'requests') for (const entry of requestsOf(parsed)) onEvent('request', entry);
    else onEvent(event, parsed);
  } catch {
    // a frame that is not JSON is not ours to show
  }
}

/** fields a request event may lack (a null in the table); the others are null when null */
const OPTIONAL = new Set(['warnings', 'reason', 'detail']);

/** `{columns, rows}` back into request events */
function requestsOf(batch: unknown): Record<string, unknown>[] {
  const { columns, rows } = (batch ?? {}) as { columns?: unknown; rows?: unknown };
  if (!Array.isArray(columns) || !Array.isArray(rows)) return [];
  return rows.map((row: unknown[]) => {
    const entry: Record<string, unknown> = {};
    columns.forEach((column: string, i) => {
      const value = row[i] ?? null;
      if (value !== null || !OPTIONAL.has(column)) entry[column] = value;
    });
    return entry;
  });
}
