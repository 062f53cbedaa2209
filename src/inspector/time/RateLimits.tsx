import { useEffect, useRef } from 'react';
import { api, unwrap } from '../api.ts';
import { ErrorLine, Panel, useLoad } from '../components/actions.tsx';
import { openStream } from '../stream.ts';

/**
 * Rate-limit buckets (GET /__sandbox/rate-limits), live: each `rate-limit`
 * stream event (and each `reset`) reads the buckets again, at most every 500 ms.
 */
export function RateLimitsPanel({ version }: { version: number }) {
  const buckets = useLoad(() => unwrap(api.GET('/__sandbox/rate-limits')), [version]);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const reload = buckets.reload;
  useEffect(() => {
    const stop = openStream((event) => {
      if (event !== 'rate-limit' && event !== 'reset') return;
      if (pending.current) return;
      pending.current = setTimeout(() => {
        pending.current = null;
        void reload();
      }, 500);
    });
    return () => {
      stop();
      if (pending.current) clearTimeout(pending.current);
      pending.current = null;
    };
  }, [reload]);

  return (
    <Panel title="Rate-limit buckets (live)" id="rate-limits">
      <ErrorLine error={buckets.error} />
      <table aria-label="Rate-limit buckets">
        <thead>
          <tr>
            <th>Bucket</th>
            <th>Kind</th>
            <th>Remaining / limit</th>
            <th>Burst tokens</th>
            <th>Per second</th>
            <th>Resets (unix s)</th>
          </tr>
        </thead>
        <tbody>
          {(buckets.value ?? []).map((bucket) => (
            <tr key={bucket.bucket}>
              <td className="mono">{bucket.bucket}</td>
              <td>{bucket.kind}</td>
              <td>
                <span className={`badge ${bucket.remaining === 0 ? 'bad' : bucket.remaining < bucket.limit / 10 ? 'warn' : 'ok'}`}>
                  {bucket.remaining} / {bucket.limit}
                </span>
              </td>
              <td>
                {bucket.burstTokens} / {bucket.burst}
              </td>
              <td>{bucket.perSecond ?? '—'}</td>
              <td className="mono">{bucket.reset === null ? '—' : `${bucket.reset} (${new Date(bucket.reset * 1000).toISOString()})`}</td>
            </tr>
          ))}
          {buckets.value && buckets.value.length === 0 ? (
            <tr>
              <td colSpan={6} className="muted">
                no bucket yet: one appears with the first request of a workspace or organization key
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </Panel>
  );
}
