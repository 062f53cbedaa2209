/** A Server-Sent Events parser for the control plane's live stream (GET /__sandbox/stream). */
export interface StreamEvent {
  event: string;
  data: string;
}

/**
 * Incremental SSE parser: feed it chunks as they arrive, get whole events
 * back. Comment lines (`: heartbeat`) and `retry:`/`id:` fields are skipped;
 * several `data:` lines of one event are joined by newlines (the SSE rules).
 */
export class SseParser {
  private buffer = '';

  push(chunk: string): StreamEvent[] {
    this.buffer += chunk.replace(/\r\n?/g, '\n');
    const events: StreamEvent[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) !== -1) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) events.push({ event, data: data.join('\n') });
    }
    return events;
  }
}
