/**
 * Formatting helpers for the dashboard: fixed-width cells, times, latencies,
 * status colours, gauges and bounded pretty-printing. Pure, so they are tested
 * without a terminal.
 */
export type Tone = 'green' | 'yellow' | 'red' | 'cyan' | 'gray' | 'magenta' | undefined;

/** Cuts or pads `text` to exactly `width` columns; a cut ends with "…". */
export function cell(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  if (width <= 0) return '';
  const oneLine = text.replace(/[\r\n\t]+/g, ' ');
  const cut = oneLine.length > width ? `${oneLine.slice(0, Math.max(0, width - 1))}…` : oneLine;
  return align === 'right' ? cut.padStart(width) : cut.padEnd(width);
}

/** HH:MM:SS of an ISO time (UTC, as the sandbox clock reports it). */
export function clockTime(iso: string | null | undefined): string {
  if (!iso) return '--:--:--';
  const match = /T(\d\d:\d\d:\d\d)/.exec(iso);
  return match ? match[1]! : iso.slice(0, 8);
}

export function latency(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '';
  if (ms < 10) return `${ms.toFixed(1)}ms`;
  if (ms < 10_000) return `${Math.round(ms)}ms`;
  return `${(ms / 1000).toFixed(1)}s`;
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

export function statusTone(status: number): Tone {
  if (status >= 500) return 'red';
  if (status === 429) return 'magenta';
  if (status >= 400) return 'yellow';
  if (status >= 300) return 'cyan';
  return 'green';
}

export function deliveryTone(status: string): Tone {
  return status === 'succeeded' ? 'green' : status === 'failed' ? 'red' : status === 'pending' ? 'yellow' : 'gray';
}

/** Green above half, yellow above a fifth, red below: the quota is draining. */
export function gaugeTone(fraction: number): Tone {
  return fraction > 0.5 ? 'green' : fraction > 0.2 ? 'yellow' : 'red';
}

/** A bar of `width` cells, filled in proportion to `fraction` (0..1). */
export function gauge(fraction: number, width: number): string {
  const w = Math.max(0, width);
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * w);
  return `${'█'.repeat(filled)}${'░'.repeat(w - filled)}`;
}

/** JSON pretty-printed when it parses, else the text; at most `maxLines` lines, each at most `width` columns. */
export function prettyBody(body: string | null | undefined, width: number, maxLines: number, truncated = false): string[] {
  if (body === null || body === undefined || body === '') return ['(empty)'];
  let text = body;
  if (!truncated) {
    try {
      text = JSON.stringify(JSON.parse(body), null, 2);
    } catch {
      // not JSON: shown as sent
    }
  }
  const lines = text.split('\n');
  const shown = lines.slice(0, Math.max(1, maxLines)).map((line) => (line.length > width ? `${line.slice(0, Math.max(0, width - 1))}…` : line));
  const more = lines.length - shown.length;
  if (more > 0 || truncated) shown[shown.length - 1] = cell(`… ${more > 0 ? `${more} more lines` : ''}${truncated ? ' (body cut at 4 KB)' : ''}`, width);
  return shown;
}

/** Matches the "/" filter: a status ("404", "4xx", "5") or a piece of the path, case-insensitive. */
export function matchesFilter(filter: string, path: string, status: number | string): boolean {
  const f = filter.trim().toLowerCase();
  if (!f) return true;
  const statusText = String(status).toLowerCase();
  const statusPattern = /^[1-5](?:\d|x){0,2}$/.test(f);
  if (statusPattern) {
    const prefix = f.replace(/x+$/, '');
    if (statusText.startsWith(prefix)) return true;
  }
  return path.toLowerCase().includes(f) || statusText === f;
}

/**
 * "n/max", one format for every row: the control plane lists maxAttempts with each
 * delivery, as the stream does; "n/?" only for a record from a sandbox that does not.
 */
export function attemptLabel(n: number, max: number | undefined): string {
  return `${n}/${max ?? '?'}`;
}

/** The first row to show so that the selected row stays inside a window of `height` rows. */
export function windowStart(selected: number, count: number, height: number): number {
  if (height <= 0 || count <= height) return 0;
  return Math.min(Math.max(0, selected - height + 1), count - height);
}
