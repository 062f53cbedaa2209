import { authHeaders } from './api.ts';

/**
 * The live stream (GET /__sandbox/stream, Server-Sent Events). Read with
 * fetch, not EventSource: EventSource cannot send the X-Sandbox-Token header,
 * and the token must never go in a query string (issue 25). Reconnects after
 * the server's `retry` (1 s) when the stream ends or fails, until stopped.
 */
export type StreamHandler = (event: string, data: unknown) => void;

export function openStream(onEvent: StreamHandler, onState: (connected: boolean) => void = () => undefined): () => void {
  const controller = new AbortController();
  let stopped = false;
  const run = async (): Promise<void> => {
    while (!stopped) {
      try {
        // detail=none: a request's headers and bodies are read when it is opened (GET /__sandbox/requests/:id),
        // so the sandbox does not render them for every request while a page is open (issue 25: throughput)
        const response = await fetch('/__sandbox/stream?detail=none', { headers: { ...authHeaders, accept: 'text/event-stream' }, signal: controller.signal });
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
    onEvent(event, JSON.parse(data.join('\n')));
  } catch {
    // a frame that is not JSON is not ours to show
  }
}
