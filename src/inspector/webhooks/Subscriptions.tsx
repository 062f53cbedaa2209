import { api, unwrap } from '../api.ts';
import { ErrorLine, Panel, useAction } from '../components/actions.tsx';
import type { SubscriptionRow } from './types.ts';

/** The workspace's webhook subscriptions, read through the data routes (GET /__sandbox/workspaces/:id/collections/webhook_subscriptions). */
export async function loadSubscriptions(workspaceId: string): Promise<SubscriptionRow[]> {
  const page = await unwrap(
    api.GET('/__sandbox/workspaces/{id}/collections/{collection}', {
      params: { path: { id: workspaceId, collection: 'webhook_subscriptions' }, query: { limit: 500 } },
    }),
  );
  return page.rows as SubscriptionRow[];
}

export function SubscriptionsPanel({
  workspaceId,
  rows,
  error,
  selected,
  onSelect,
  onChanged,
}: {
  workspaceId: string | undefined;
  rows: SubscriptionRow[] | undefined;
  error: string | null;
  selected: string;
  onSelect: (id: string) => void;
  onChanged: () => void;
}) {
  const action = useAction();
  // pause or resume (POST /__sandbox/webhook-subscriptions/:id/active); resuming a disabled one clears the warning, as PATCH {active: true} does
  const setActive = (id: string, active: boolean) =>
    action.run(async () => {
      if (!workspaceId) return;
      await unwrap(api.POST('/__sandbox/webhook-subscriptions/{id}/active', { params: { path: { id } }, body: { workspaceId, active } }));
      onChanged();
    });
  return (
    <Panel title="Subscriptions" id="subscriptions">
      <ErrorLine error={error ?? action.error} />
      <table aria-label="Subscriptions">
        <thead>
          <tr>
            <th>Id</th>
            <th>URL</th>
            <th>Events</th>
            <th>State</th>
            <th>Failures</th>
            <th>Last delivery</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((sub) => (
            <tr key={sub.id} className={sub.id === selected ? 'selected' : undefined}>
              <td className="mono">{sub.id}</td>
              <td className="mono wrap url">{sub.url}</td>
              <td className="wrap mono">{sub.events?.join(' ')}</td>
              <td className="wrap">
                {sub.disabled ? (
                  <span className="badge bad" title={sub.disabled.reason}>
                    disabled at {sub.disabled.at}: {sub.disabled.reason}
                  </span>
                ) : sub.active ? (
                  <span className="badge ok">active</span>
                ) : (
                  <span className="badge warn">paused</span>
                )}
              </td>
              <td>{sub.failure_count ?? 0}</td>
              <td className="mono">{sub.last_delivery_at ?? '—'}</td>
              <td className="actions">
                <button
                  type="button"
                  disabled={action.busy}
                  aria-label={`${sub.active ? 'Pause' : 'Resume'} ${sub.id}`}
                  onClick={() => void setActive(sub.id, !sub.active)}
                >
                  {sub.active ? 'Pause' : 'Resume'}
                </button>
                <button type="button" aria-label={`Show deliveries of ${sub.id}`} onClick={() => onSelect(sub.id === selected ? '' : sub.id)}>
                  {sub.id === selected ? 'All deliveries' : 'Deliveries'}
                </button>
              </td>
            </tr>
          ))}
          {rows && rows.length === 0 ? (
            <tr>
              <td colSpan={7} className="muted">
                no subscription: create one with POST /v1/webhooks/subscriptions, or `sandbox listen`
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </Panel>
  );
}
