import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ErrorLine, JSON_HEADERS, StatusBadge, useAction } from '../components/actions.tsx';
import { JsonBlock } from '../components/JsonBlock.tsx';
import { SIGNATURE_HEADERS, statusTone, type Delivery } from './types.ts';

/**
 * One delivery: every attempt (trigger, time, status, latency, error), the
 * next retry on the sandbox clock, the payload, the signed request's headers
 * (signature headers first) and a Replay button (POST /deliveries/:id/replay).
 */
export function DeliveryDetail({ delivery, onReplayed }: { delivery: Delivery; onReplayed: (delivery: Delivery) => void }) {
  const action = useAction();
  const [attemptNo, setAttemptNo] = useState<number | null>(null);
  const attempt = delivery.attempts.find((a) => a.number === attemptNo) ?? delivery.attempts[delivery.attempts.length - 1];
  const headers = attempt ? Object.entries(attempt.request.headers) : [];
  headers.sort(([a], [b]) => Number(!SIGNATURE_HEADERS.includes(a)) - Number(!SIGNATURE_HEADERS.includes(b)) || a.localeCompare(b));

  const replay = () =>
    action.run(async () => {
      const next = await unwrap(api.POST('/__sandbox/deliveries/{id}/replay', { params: { path: { id: delivery.id } }, headers: JSON_HEADERS }));
      setAttemptNo(null);
      onReplayed(next);
    });

  return (
    <section className="panel delivery-detail" aria-label={`Delivery ${delivery.id}`}>
      <header className="panel-head">
        <h2>
          {delivery.eventType} <span className="mono muted">{delivery.id}</span>
        </h2>
        <span className={`badge ${statusTone(delivery.status)}`}>{delivery.status}</span>
        <button type="button" className="primary" disabled={action.busy} onClick={() => void replay()}>
          {action.busy ? 'Replaying…' : 'Replay'}
        </button>
      </header>
      <ErrorLine error={action.error} />
      <dl className="facts">
        <dt>Event</dt>
        <dd className="mono">{delivery.eventId}</dd>
        <dt>Subscription</dt>
        <dd className="mono">{delivery.subscriptionId}</dd>
        <dt>Attempts</dt>
        <dd>
          {delivery.attempts.length} of at most {delivery.maxAttempts} ({delivery.retries} retr{delivery.retries === 1 ? 'y' : 'ies'})
        </dd>
        <dt>Next retry</dt>
        <dd className="mono" data-testid="next-retry">
          {delivery.nextAttemptAt ? `${delivery.nextAttemptAt} (sandbox clock)` : 'none'}
        </dd>
        {delivery.reason ? (
          <>
            <dt>Reason</dt>
            <dd>{delivery.reason}</dd>
          </>
        ) : null}
        {delivery.fault ? (
          <>
            <dt>Fault</dt>
            <dd data-testid="delivery-fault">{delivery.fault.summary}</dd>
          </>
        ) : null}
      </dl>
      <table aria-label="Attempts">
        <thead>
          <tr>
            <th>#</th>
            <th>Trigger</th>
            <th>At</th>
            <th>Status</th>
            <th>Duration</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {delivery.attempts.map((a) => (
            <tr
              key={a.number}
              className={`clickable${a === attempt ? ' selected' : ''}`}
              onClick={() => setAttemptNo(a.number)}
              data-testid={`attempt-${a.number}`}
            >
              <td>{a.number}</td>
              <td>{a.trigger}</td>
              <td className="mono">{a.at}</td>
              <td>
                <StatusBadge status={a.response?.status ?? null} />
              </td>
              <td>{Math.round(a.latencyMs)} ms</td>
              <td className="wrap">{a.error ?? ''}</td>
            </tr>
          ))}
          {delivery.attempts.length === 0 ? (
            <tr>
              <td colSpan={6} className="muted">
                no attempt yet
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <div className="grid2">
        <div>
          <h3>Payload</h3>
          <JsonBlock text={delivery.body} label="Payload" />
        </div>
        <div>
          <h3>{attempt ? `Request headers of attempt ${attempt.number} (signed at that attempt)` : 'Request headers'}</h3>
          {attempt ? (
            <table aria-label="Request headers">
              <tbody>
                {headers.map(([name, value]) => (
                  <tr key={name} className={SIGNATURE_HEADERS.includes(name) ? 'signature' : undefined}>
                    <th className="mono">{name}</th>
                    <td className="mono wrap">{value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="muted">sent with the first attempt</p>
          )}
          {attempt?.response ? (
            <>
              <h3>Response excerpt</h3>
              <JsonBlock text={attempt.response.bodyExcerpt} label="Response excerpt" />
            </>
          ) : null}
        </div>
      </div>
    </section>
  );
}
