import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, percentile, round } from './lib/stats.ts';

/**
 * Section 5, a placeholder hook: when src/webhooks/bench.ts exists and exports
 * measureWebhookLatency(count), it is called with `count` and its figures are
 * reported. Imported dynamically, so the bench runs before that module exists.
 */
export type WebhookResult =
  | { status: 'absent' }
  | { status: 'error'; message: string }
  | { status: 'ok'; count: number; medianMs: number; p99Ms: number };

const MODULE_URL = new URL('../src/webhooks/bench.ts', import.meta.url);

export async function runWebhooks(count: number, log: (line: string) => void): Promise<WebhookResult> {
  if (!existsSync(fileURLToPath(MODULE_URL))) return { status: 'absent' };
  log(`webhooks: measureWebhookLatency(${count}) ...`);
  try {
    const mod = (await import(MODULE_URL.href)) as { measureWebhookLatency?: (count: number) => unknown };
    if (typeof mod.measureWebhookLatency !== 'function') return { status: 'error', message: 'src/webhooks/bench.ts does not export measureWebhookLatency' };
    return { status: 'ok', count, ...readFigures(await mod.measureWebhookLatency(count)) };
  } catch (err) {
    return { status: 'error', message: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The hook's return shape is not fixed yet: accept an array of latencies (ms)
 * or an object carrying them (`latenciesMs`) or the figures themselves
 * (`medianMs`/`p50Ms`/`median` and `p99Ms`/`p99`).
 */
function readFigures(value: unknown): { medianMs: number; p99Ms: number } {
  const fromArray = (values: unknown[]) => {
    const sorted = values.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
    return { medianMs: round(median(sorted), 2), p99Ms: round(percentile(sorted, 99), 2) };
  };
  if (Array.isArray(value)) return fromArray(value);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.latenciesMs)) return fromArray(o.latenciesMs);
    const pick = (...names: string[]) => names.map((n) => o[n]).find((v): v is number => typeof v === 'number') ?? Number.NaN;
    return { medianMs: round(pick('medianMs', 'p50Ms', 'median', 'p50'), 2), p99Ms: round(pick('p99Ms', 'p99'), 2) };
  }
  throw new Error(`measureWebhookLatency returned ${typeof value}; expected latencies or {medianMs, p99Ms}`);
}
