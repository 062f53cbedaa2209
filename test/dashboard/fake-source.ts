import type { DashboardSource, DeliveryView, FeedItem, InitialState, SourceSink } from '../../src/dashboard/types.ts';
import type { RequestLogLine, WorkspaceSummary } from '../../src/control/client.ts';

/** A source the test drives by hand: what a live control plane would push. */
export class FakeSource implements DashboardSource {
  readonly url = 'http://127.0.0.1:4010';
  sink: SourceSink | null = null;
  replayed: string[] = [];
  /** what workspaces() answers: the sandbox's workspaces now */
  workspaceList: WorkspaceSummary[] = [];
  workspaceReads = 0;

  start(sink: SourceSink): () => void {
    this.sink = sink;
    sink.status('live');
    return () => {
      this.sink = null;
    };
  }

  async replay(id: string): Promise<DeliveryView> {
    this.replayed.push(id);
    return delivery({ id, status: 'succeeded', attempts: 2 });
  }

  async workspaces(): Promise<WorkspaceSummary[]> {
    this.workspaceReads += 1;
    return this.workspaceList;
  }

  initial(partial: Partial<InitialState> = {}): void {
    this.sink!.initial({ requests: [], deliveries: [], rateLimits: [], clock: null, uptimeMs: 1000, workspaceNames: { wksp_a: 'Aurora Tours' }, ...partial });
  }

  feed(...items: FeedItem[]): void {
    for (const item of items) this.sink!.feed(item);
  }
}

let n = 0;
export function request(overrides: Partial<RequestLogLine> = {}): FeedItem {
  n += 1;
  return {
    kind: 'request',
    entry: {
      requestId: `req_${n}`,
      method: 'GET',
      path: `/v1/products/${n}`,
      status: 200,
      latencyMs: 3.2,
      workspaceId: 'wksp_a',
      keyPrefix: 'tcs_live_aurora',
      at: '2026-01-05T10:00:00.000Z',
      ...overrides,
    },
  };
}

/** A delivery as the control plane lists it (with maxAttempts, 6 unless `maxAttempts: null`: an older sandbox that does not send it). */
export function delivery(
  overrides: {
    id?: string;
    status?: DeliveryView['status'];
    attempts?: number;
    eventType?: string;
    url?: string;
    httpStatus?: number;
    maxAttempts?: number | null;
  } = {},
): DeliveryView {
  const attempts = overrides.attempts ?? 1;
  return {
    id: overrides.id ?? 'dlv_1',
    subscriptionId: 'whsub_1',
    eventId: 'evt_1',
    eventType: overrides.eventType ?? 'booking.created',
    status: overrides.status ?? 'pending',
    ...(overrides.maxAttempts === null ? {} : { maxAttempts: overrides.maxAttempts ?? 6 }),
    nextAttemptAt: overrides.status === 'succeeded' ? null : '2026-01-05T10:00:30.000Z',
    createdAt: '2026-01-05T10:00:00.000Z',
    attempts: Array.from({ length: attempts }, (_, i) => ({
      number: i + 1,
      trigger: i === 0 ? 'initial' : 'retry',
      at: '2026-01-05T10:00:01.000Z',
      request: { url: overrides.url ?? 'http://localhost:3000/hooks' },
      response: { status: overrides.httpStatus ?? 500, bodyExcerpt: '{"ok":false}' },
      latencyMs: 12,
      error: null,
    })),
  };
}

/** Polls the latest frame until `check` passes, with a bounded number of turns of the event loop. */
export async function waitForFrame(lastFrame: () => string | undefined, check: (frame: string) => boolean, deadlineMs = 15_000): Promise<string> {
  let frame = '';
  // a deadline in time, not 100 turns of 5 ms: turns stretch on a loaded machine
  for (const end = Date.now() + deadlineMs; Date.now() < end; ) {
    frame = lastFrame() ?? '';
    if (check(frame)) return frame;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`frame never matched; last frame:\n${frame}`);
}
