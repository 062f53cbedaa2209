import type { ClockState, RateBucketSummary, RequestLogLine, WorkspaceSummary } from '../control/client.ts';
import type { DomainEvent } from '../core/events.ts';
import type { DeliveryUpdate } from '../core/stream-events.ts';

/** What the dashboard knows of one webhook delivery (docs/webhooks.md, "Delivery"). */
export interface DeliveryView {
  id: string;
  workspaceId?: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled' | 'expired';
  reason?: string | null;
  retries?: number;
  /** present when the control plane reports it; the attempt column then reads "n/max" */
  maxAttempts?: number;
  nextAttemptAt: string | null;
  /** what a delivery fault rule did to it, when one did (docs/webhooks.md, "Testing your receiver") */
  fault?: { summary: string } | null;
  createdAt?: string;
  updatedAt?: string;
  attempts: {
    number: number;
    trigger: string;
    at: string;
    request?: { url: string };
    response: { status: number; bodyExcerpt: string } | null;
    latencyMs: number;
    error: string | null;
  }[];
}

export type RequestRow = RequestLogLine;
export type RateBucket = RateBucketSummary;
export type DomainEventRow = DomainEvent;

export type ConnectionStatus = 'connecting' | 'live' | 'down';

/** Everything the source reports; the reducer folds these into the state. */
export type FeedItem =
  | { kind: 'request'; entry: RequestRow }
  | { kind: 'domain'; event: DomainEventRow }
  /** one attempt just recorded (the stream's short form); the full record comes from the poll */
  | { kind: 'delivery'; update: DeliveryUpdate }
  | { kind: 'rate-limit'; change: { bucket: string; limit: number; remaining: number; reset: number } }
  | { kind: 'reset'; at: string }
  /** an event the dashboard could not read: counted in the header, never thrown */
  | { kind: 'skipped'; event: string; reason: string };

export interface InitialState {
  requests: RequestRow[];
  deliveries: DeliveryView[];
  rateLimits: RateBucket[];
  clock: ClockState | null;
  uptimeMs: number | null;
  workspaceNames: Record<string, string>;
  /** the workspaces and their keys (the K overlay); absent from sources that do not know them */
  workspaces?: WorkspaceSummary[];
}

/** The sandbox as the dashboard sees it: pushed by a live control-plane source or a fake one in tests. */
export interface DashboardSource {
  readonly url: string;
  /** starts feeding; returns a stop function */
  start(sink: SourceSink): () => void;
  replay(deliveryId: string): Promise<DeliveryView>;
  /** the workspaces now, to name one created after the initial load (absent: ids stay ids) */
  workspaces?(): Promise<WorkspaceSummary[]>;
}

export interface SourceSink {
  status(status: ConnectionStatus, detail?: string): void;
  initial(state: InitialState): void;
  feed(item: FeedItem): void;
  deliveries(list: DeliveryView[]): void;
  rateLimits(list: RateBucket[]): void;
  clock(clock: ClockState, uptimeMs: number | null): void;
}
