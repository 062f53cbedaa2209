import type { SandboxWarning } from '../core/warnings.ts';
import type { DeliveryUpdate } from '../core/events.ts';
import type { RunReport } from './schema.ts';
import type { CatalogRoute } from '../core/route-catalog.ts';
import { openApiPath, operationIdOf } from '../http/openapi.ts';

/**
 * The run report's running counters (docs/cli.md, "The run report").
 * The request log keeps the last 1,000 requests; a CI run makes many more, so
 * the report counts as requests finish instead. Memory is bounded by what the
 * API can be asked, not by how often: operations x statuses, warning codes,
 * reason codes, and one example each.
 */
export interface AnsweredRequest {
  id: string;
  method: string;
  /** the matched route's URL template (`/v1/products/:id`); undefined when no route matched */
  route: string | undefined;
  url: string;
  status: number;
  warnings: readonly SandboxWarning[] | null;
  /** the X-Sandbox-Reason value, `CODE sentence` */
  reason: string | null;
  /** over a rate limit but let through (rateLimits: report) */
  rateReported: boolean;
}

interface OperationCounts {
  method: string;
  route: string | undefined;
  requests: number;
  statuses: Map<number, number>;
  /** warning code -> requests of this operation that carried it */
  warnings: Map<string, number>;
}

type Example = { requestId: string; method: string; path: string; status: number };

/** Examples keep a path a person reads, not a 100 kB query string. */
const MAX_EXAMPLE_PATH = 200;

export class RunReportCounters {
  /** route URL template ('' when none matched) -> method -> counts */
  private operations = new Map<string, Map<string, OperationCounts>>();
  private warningCodes = new Map<string, { count: number; example: Example & { message: string } }>();
  private reasonCodes = new Map<string, { count: number; example: Example & { reason: string } }>();
  private total = 0;
  private refused = 0;
  private reported = 0;
  private sent = 0;
  private failed = 0;
  private since: string;
  /** a bundle's report (`sandbox open`, src/bundle/load.ts): answered as it was saved, whatever comes after */
  private saved: RunReport | null = null;

  constructor(private readonly now: () => string) {
    this.since = now();
  }

  /** One finished /v1 request (the request hooks' onResponse). A few map updates: it is on every request's path. */
  request(r: AnsweredRequest): void {
    this.total += 1;
    // by route, then method: no key string is built per request
    let byMethod = this.operations.get(r.route ?? '');
    if (!byMethod) this.operations.set(r.route ?? '', (byMethod = new Map()));
    let op = byMethod.get(r.method);
    if (!op) byMethod.set(r.method, (op = { method: r.method, route: r.route, requests: 0, statuses: new Map(), warnings: new Map() }));
    op.requests += 1;
    op.statuses.set(r.status, (op.statuses.get(r.status) ?? 0) + 1);
    if (r.status === 429) this.refused += 1;
    if (r.rateReported) this.reported += 1;
    if (r.warnings && r.warnings.length > 0) {
      for (const w of r.warnings) {
        op.warnings.set(w.code, (op.warnings.get(w.code) ?? 0) + 1);
        const seen = this.warningCodes.get(w.code);
        if (seen) seen.count += 1;
        else this.warningCodes.set(w.code, { count: 1, example: { ...example(r), message: w.message } });
      }
    }
    if (r.reason) {
      const code = r.reason.split(' ', 1)[0]!;
      const seen = this.reasonCodes.get(code);
      if (seen) seen.count += 1;
      else this.reasonCodes.set(code, { count: 1, example: { ...example(r), reason: r.reason } });
    }
  }

  /** One delivery attempt recorded (the bus's `delivery` event); a replay is not a new delivery. */
  delivery(update: DeliveryUpdate): void {
    if (update.trigger === 'replay') return;
    if (update.status === 'succeeded') this.sent += 1;
    else if (update.status === 'failed') this.failed += 1;
  }

  clear(): void {
    this.operations.clear();
    this.warningCodes.clear();
    this.reasonCodes.clear();
    this.total = this.refused = this.reported = this.sent = this.failed = 0;
    this.since = this.now();
  }

  /** From now on the report is this one, as a bundle saved it (a sandbox serving a bundle, read-only). */
  restore(report: RunReport): void {
    this.saved = report;
  }

  /** The report, with every /v1 operation of the route catalogue for `neverCalled`, and the deliveries pending now. */
  build(routes: readonly CatalogRoute[], pendingDeliveries: number): RunReport {
    if (this.saved) return this.saved;
    const apiRoutes = routes.filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD' && r.method !== 'OPTIONS');
    const byKey = new Map(apiRoutes.map((r) => [`${r.method} ${r.url}`, r]));
    const called = [...this.operations.values()].flatMap((byMethod) => [...byMethod.values()]);
    const operations = called.map((op) => {
      const route = op.route === undefined ? undefined : byKey.get(`${op.method} ${op.route}`);
      return {
        operationId: route ? operationIdOf(route) : null,
        method: op.method,
        path: route ? openApiPath(route.url) : null,
        requests: op.requests,
        statuses: Object.fromEntries([...op.statuses].sort(([a], [b]) => a - b).map(([status, count]) => [String(status), count])),
        warnings: Object.fromEntries([...op.warnings].sort(([a], [b]) => a.localeCompare(b))),
      };
    });
    operations.sort((a, b) => b.requests - a.requests || (a.operationId ?? '~').localeCompare(b.operationId ?? '~'));
    const neverCalled = apiRoutes
      .filter((r) => !this.operations.get(r.url)?.has(r.method))
      .map((r) => ({ operationId: operationIdOf(r), method: r.method, path: openApiPath(r.url) }))
      .sort((a, b) => a.operationId.localeCompare(b.operationId));
    const byCount = <T extends { count: number }>(entries: Map<string, T>) =>
      [...entries].map(([code, e]) => ({ code, ...e })).sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
    return {
      since: this.since,
      requests: this.total,
      operations,
      neverCalled,
      warnings: byCount(this.warningCodes),
      refusals: byCount(this.reasonCodes),
      rateLimits: { refused: this.refused, reported: this.reported },
      webhooks: { sent: this.sent, failed: this.failed, pending: pendingDeliveries },
    };
  }
}

function example(r: AnsweredRequest): Example {
  return { requestId: r.id, method: r.method, path: r.url.length > MAX_EXAMPLE_PATH ? `${r.url.slice(0, MAX_EXAMPLE_PATH - 3)}...` : r.url, status: r.status };
}
