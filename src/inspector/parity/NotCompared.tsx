import type { ParityReport } from './Differences.tsx';

export type NotCompared = NonNullable<ParityReport['notCompared']>[number];

/** The badge's tone: an answer too large or a replay that failed hides behaviour; the others are data or budget, by design. */
const tone = (reason: NotCompared['reason']): string => (reason === 'too-large' || reason === 'no-replay' ? 'warn' : '');

/**
 * The requests forwarded but not compared, one row per (reason, operation), most frequent first
 * (the report's order): with the compared ones they add up to every request forwarded
 * (docs/parity.md, "Reading the report"). Not drift: nothing to select.
 */
export function NotComparedTable({ rows }: { rows: readonly NotCompared[] }) {
  return (
    <table aria-label="Not compared">
      <thead>
        <tr>
          <th>Count</th>
          <th>Reason</th>
          <th>Operation</th>
          <th>Detail</th>
          <th>First request</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((n) => (
          <tr key={`${n.reason} ${n.method} ${n.path}`} data-testid="parity-not-compared">
            <td>{n.count}</td>
            <td>
              <span className={`badge ${tone(n.reason)}`}>{n.reason}</span>
            </td>
            <td className="mono">
              {n.method} {n.path}
            </td>
            <td>{n.detail}</td>
            <td className="mono">{n.requestId}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
