import { api, unwrap } from '../api.ts';
import { ErrorLine, Panel, useLoad } from '../components/actions.tsx';

/**
 * Rate-limit buckets (GET /__sandbox/rate-limits), live: the view reads them
 * again when its stream reports a `rate-limit` event (`live` changes, at most
 * every 500 ms) or a reset (`version`).
 */
export function RateLimitsPanel({ version, live }: { version: number; live: number }) {
  const buckets = useLoad(() => unwrap(api.GET('/__sandbox/rate-limits')), [version, live]);

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
