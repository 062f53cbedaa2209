import { StatusBadge } from '../components/actions.tsx';
import { statusTone, type Delivery } from './types.ts';

/** The deliveries table, newest first; a click selects one. */
export function DeliveriesTable({ deliveries, selected, onSelect }: { deliveries: Delivery[]; selected: string | null; onSelect: (id: string) => void }) {
  return (
    <table aria-label="Deliveries">
      <thead>
        <tr>
          <th>Created</th>
          <th>Event type</th>
          <th>Status</th>
          <th>Attempts</th>
          <th>Last answer</th>
          <th>Next retry</th>
          <th>Subscription</th>
          <th>Fault</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => {
          const last = d.attempts[d.attempts.length - 1];
          return (
            <tr
              key={d.id}
              className={`clickable${d.id === selected ? ' selected' : ''}`}
              onClick={() => onSelect(d.id)}
              data-testid={`delivery-${d.id}`}
              aria-selected={d.id === selected}
            >
              <td className="mono">{d.createdAt}</td>
              <td>
                <button type="button" className="link" onClick={() => onSelect(d.id)}>
                  {d.eventType}
                </button>
              </td>
              <td>
                <span className={`badge ${statusTone(d.status)}`}>{d.status}</span>
              </td>
              <td>
                {d.attempts.length}/{d.maxAttempts}
              </td>
              <td>{last ? <StatusBadge status={last.response?.status ?? null} /> : <span className="muted">—</span>}</td>
              <td className="mono">{d.nextAttemptAt ?? '—'}</td>
              <td className="mono">{d.subscriptionId}</td>
              <td className="wrap" data-testid={`delivery-fault-${d.id}`}>
                {d.fault?.summary ?? ''}
              </td>
            </tr>
          );
        })}
        {deliveries.length === 0 ? (
          <tr>
            <td colSpan={8} className="muted">
              no delivery matches: trigger an event above, or call the API
            </td>
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}
