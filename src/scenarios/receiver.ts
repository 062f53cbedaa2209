import { createServer, type Server } from 'node:http';

/**
 * A scripted local webhook receiver for scenarios: answers the given statuses
 * in turn (the last one repeats) and remembers what it received.
 */
export interface ReceivedDelivery {
  type: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export class ScriptedReceiver {
  readonly received: ReceivedDelivery[] = [];
  private server: Server;
  private calls = 0;
  url = '';

  constructor(private readonly statuses: number[]) {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        const status = this.statuses[Math.min(this.calls++, this.statuses.length - 1)]!;
        let body: unknown = raw;
        try {
          body = JSON.parse(raw);
        } catch {
          // keep the raw text
        }
        this.received.push({ type: String((body as { type?: unknown })?.type ?? ''), status, headers: req.headers, body });
        res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${port}/webhooks`;
    return this.url;
  }

  /** deliveries of a type that were answered with a 2xx */
  succeeded(type: string): number {
    return this.received.filter((r) => r.type === type && r.status >= 200 && r.status < 300).length;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
