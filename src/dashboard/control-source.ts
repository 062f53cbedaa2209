import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlClient, StreamEvent } from '../control/client.ts';
import { decodeStreamEvent } from '../core/stream-events.ts';
import type { DashboardSource, DeliveryView, FeedItem, InitialState, SourceSink } from './types.ts';

/**
 * The live source: reads only the control plane. It opens GET /__sandbox/stream
 * (SSE), loads the initial state from the REST routes once the stream says
 * hello, then forwards every event. Deliveries, rate-limit buckets and the
 * clock are also polled (once a second) because burst buckets refill and retries
 * fall due without an event. When the sandbox goes away it reports "down" and
 * reconnects with exponential backoff.
 */
export interface ControlSourceOptions {
  pollMs?: number;
  backoffMinMs?: number;
  backoffMaxMs?: number;
}

export class ControlSource implements DashboardSource {
  readonly url: string;
  private readonly pollMs: number;
  private readonly backoff: { min: number; max: number };

  constructor(
    private readonly client: ControlClient,
    options: ControlSourceOptions = {},
  ) {
    this.url = client.baseUrl;
    this.pollMs = options.pollMs ?? 1000;
    this.backoff = { min: options.backoffMinMs ?? 250, max: options.backoffMaxMs ?? 5000 };
  }

  start(sink: SourceSink): () => void {
    const controller = new AbortController();
    let live = false;
    void this.connectLoop(sink, controller.signal, (value) => (live = value));
    const poll = setInterval(() => {
      if (live) void this.poll(sink);
    }, this.pollMs);
    return () => {
      controller.abort();
      clearInterval(poll);
    };
  }

  replay(deliveryId: string): Promise<DeliveryView> {
    return this.client.replayDelivery(deliveryId) as Promise<DeliveryView>;
  }

  workspaces() {
    return this.client.workspaces();
  }

  private async connectLoop(sink: SourceSink, signal: AbortSignal, setLive: (live: boolean) => void): Promise<void> {
    let delay = this.backoff.min;
    while (!signal.aborted) {
      sink.status('connecting');
      let reason = 'the stream ended';
      try {
        for await (const event of this.client.stream(signal)) {
          if (event.event === 'hello') {
            sink.initial(await this.loadInitial());
            sink.status('live');
            setLive(true);
            delay = this.backoff.min;
            continue;
          }
          const item = toFeedItem(event);
          if (item) sink.feed(item);
          // an attempt's stream event is a summary: the poll brings the whole record (bodies, headers)
          if (item?.kind === 'domain' || item?.kind === 'delivery') void this.pollDeliveries(sink);
        }
      } catch (err) {
        reason = err instanceof Error ? err.message : String(err);
      }
      setLive(false);
      if (signal.aborted) return;
      sink.status('down', reason);
      try {
        await sleep(delay, undefined, { signal });
      } catch {
        return;
      }
      delay = Math.min(delay * 2, this.backoff.max);
    }
  }

  private async loadInitial(): Promise<InitialState> {
    const [requests, deliveries, rateLimits, clock, health, workspaces] = await Promise.all([
      this.client.requests(500),
      this.deliveryList(),
      this.client.rateLimits(),
      this.client.clock().catch(() => null),
      this.client.health().catch(() => null),
      this.client.workspaces().catch(() => []),
    ]);
    return {
      requests,
      deliveries,
      rateLimits,
      clock,
      uptimeMs: health?.uptimeMs ?? null,
      workspaceNames: Object.fromEntries(workspaces.map((w) => [w.id, w.name])),
      workspaces,
    };
  }

  private deliveryList(): Promise<DeliveryView[]> {
    return this.client.deliveries({ limit: 100 });
  }

  private polling: Promise<void> | null = null;
  private pollAgain = false;

  /** One poll at a time; requests made meanwhile (a burst of deliveries) share one more poll. */
  private pollDeliveries(sink: SourceSink): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return this.polling;
    }
    this.polling = (async () => {
      do {
        this.pollAgain = false;
        try {
          sink.deliveries(await this.deliveryList());
        } catch {
          // the stream reports a sandbox that went away
        }
      } while (this.pollAgain);
      this.polling = null;
    })();
    return this.polling;
  }

  private async poll(sink: SourceSink): Promise<void> {
    try {
      const [rateLimits, clock, health] = await Promise.all([this.client.rateLimits(), this.client.clock(), this.client.health()]);
      sink.rateLimits(rateLimits);
      sink.clock(clock, health.uptimeMs);
    } catch {
      return;
    }
    await this.pollDeliveries(sink);
  }
}

/**
 * One SSE event as a feed item, decoded with the stream's shared zod schema.
 * Never throws: an unknown or malformed event becomes a `skipped` item the
 * header counts; `hello` (handled by the caller) gives null.
 */
export function toFeedItem(event: StreamEvent): FeedItem | null {
  const decoded = decodeStreamEvent(event.event, event.data);
  if (!decoded.ok) return { kind: 'skipped', event: event.event, reason: decoded.reason };
  switch (decoded.event) {
    case 'hello':
      return null;
    case 'request':
      return { kind: 'request', entry: decoded.payload };
    case 'requests': // only sent to a client that asks ?requests=batched, which the dashboard does not
      return { kind: 'skipped', event: 'requests', reason: 'batched requests not asked for' };
    case 'domain':
      return { kind: 'domain', event: decoded.payload };
    case 'delivery':
      return { kind: 'delivery', update: decoded.payload };
    case 'rate-limit':
      return { kind: 'rate-limit', change: decoded.payload };
    case 'reset':
      return { kind: 'reset', at: decoded.payload.at };
  }
}
