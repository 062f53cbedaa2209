/** The control plane's event stream (`GET /__sandbox/stream`) read over a real socket, for tests. */
export interface StreamReader {
  response: Response;
  /** everything received so far */
  readonly text: string;
  /** reads until `needle` has arrived (or the stream ends) */
  readUntil(needle: string): Promise<void>;
  /** the `data:` line right after `event: <name>`, parsed */
  firstData(event: string): unknown;
  close(): void;
}

export async function openStream(controlUrl: string, query = ''): Promise<StreamReader> {
  const controller = new AbortController();
  const response = await fetch(`${controlUrl}/stream${query}`, { signal: controller.signal });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    response,
    get text() {
      return text;
    },
    async readUntil(needle) {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value);
      }
    },
    firstData(event) {
      const line = text.split('\n').find((l, i, all) => all[i - 1] === `event: ${event}` && l.startsWith('data: '));
      return line === undefined ? undefined : JSON.parse(line.slice(6));
    },
    close: () => controller.abort(),
  };
}
