/** Status → badge class: 2xx ok, 4xx warn, 5xx bad (styles.css). */
export function statusClass(status: number): string {
  if (status >= 500 || status === 0) return 'badge bad';
  if (status >= 400) return 'badge warn';
  return 'badge ok';
}

/** `CODE sentence` (X-Sandbox-Reason) → its CODE */
export function reasonCode(reason: string): string {
  const space = reason.indexOf(' ');
  return space > 0 ? reason.slice(0, space) : reason;
}

export function formatLatency(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}
