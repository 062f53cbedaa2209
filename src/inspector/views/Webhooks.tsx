import { useCallback, useEffect, useRef, useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ErrorLine, Panel, useLoad } from '../components/actions.tsx';
import { openStream } from '../stream.ts';
import { DeliveriesTable } from '../webhooks/Deliveries.tsx';
import { DeliveryDetail } from '../webhooks/DeliveryDetail.tsx';
import { loadSubscriptions, SubscriptionsPanel } from '../webhooks/Subscriptions.tsx';
import { TriggerPanel } from '../webhooks/Trigger.tsx';
import { STATUSES, type Delivery, type DeliveryStatus } from '../webhooks/types.ts';
import { useWorkspaces } from '../workspaces.tsx';

/**
 * Webhooks (docs/inspector.md, "Webhooks"): the workspace's subscriptions, a form that emits an
 * event, and its deliveries with every attempt; live through the stream's
 * `delivery` events (a burst reads the list once, after 300 ms).
 */
export function WebhooksView() {
  const { selected: workspace } = useWorkspaces();
  const wsId = workspace?.id;
  const [subscriptionId, setSubscriptionId] = useState('');
  const [eventType, setEventType] = useState('');
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  // another workspace: its own subscriptions and deliveries, nothing selected
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the workspace changes, which it does not read
  useEffect(() => {
    setSubscriptionId('');
    setEventType('');
    setSelectedId(null);
  }, [wsId]);

  const subscriptions = useLoad(async () => (wsId ? loadSubscriptions(wsId) : []), [wsId]);
  const deliveries = useLoad(
    async () =>
      wsId
        ? unwrap(
            api.GET('/__sandbox/deliveries', {
              params: {
                query: {
                  workspaceId: wsId,
                  limit: 100,
                  ...(subscriptionId ? { subscriptionId } : {}),
                  ...(eventType ? { eventType } : {}),
                  ...(status ? { status } : {}),
                },
              },
            }),
          )
        : [],
    [wsId, subscriptionId, eventType, status],
  );
  const [detail, setDetail] = useState<Delivery | null>(null);
  const [detailError, setDetailError] = useState<string | null>(null);
  const loadDetail = useCallback(async (id: string) => {
    try {
      setDetail(await unwrap(api.GET('/__sandbox/deliveries/{id}', { params: { path: { id } } })));
      setDetailError(null);
    } catch (err) {
      setDetailError(err instanceof Error ? err.message : String(err));
    }
  }, []);
  useEffect(() => {
    if (selectedId) void loadDetail(selectedId);
    else setDetail(null);
  }, [selectedId, loadDetail]);

  // live: a delivery event (or a reset) reads the list, the subscriptions and the open delivery again
  const selectedRef = useRef(selectedId);
  selectedRef.current = selectedId;
  const reloadDeliveries = deliveries.reload;
  const reloadSubscriptions = subscriptions.reload;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const stop = openStream(['delivery', 'reset'], (event) => {
      if (event !== 'delivery' && event !== 'reset') return;
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        void reloadDeliveries();
        void reloadSubscriptions();
        if (selectedRef.current) void loadDetail(selectedRef.current);
      }, 300);
    });
    return () => {
      stop();
      if (timer) clearTimeout(timer);
    };
  }, [reloadDeliveries, reloadSubscriptions, loadDetail]);

  const list = deliveries.value ?? [];
  const eventTypes = [...new Set(list.map((d) => d.eventType))].sort();
  // the deliveries' subscriptions, for one the data routes no longer list (deleted)
  const subscriptionIds = [...new Set([...(subscriptions.value ?? []).map((s) => s.id), ...list.map((d) => d.subscriptionId)])];

  return (
    <section className="webhooks-view">
      <h1>Webhooks</h1>
      <SubscriptionsPanel
        workspaceId={wsId}
        rows={subscriptions.value}
        error={subscriptions.error}
        selected={subscriptionId}
        onSelect={setSubscriptionId}
        onChanged={() => void subscriptions.reload()}
      />
      <TriggerPanel
        workspaceId={wsId}
        onEmitted={() => {
          void deliveries.reload();
        }}
      />
      <Panel
        title="Deliveries"
        id="deliveries"
        actions={
          <>
            <select aria-label="Filter by subscription" value={subscriptionId} onChange={(e) => setSubscriptionId(e.target.value)}>
              <option value="">every subscription</option>
              {subscriptionIds.map((id) => (
                <option key={id}>{id}</option>
              ))}
            </select>
            <select aria-label="Filter by event type" value={eventType} onChange={(e) => setEventType(e.target.value)}>
              <option value="">every event type</option>
              {[...new Set([...eventTypes, ...(eventType ? [eventType] : [])])].map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
            <select aria-label="Filter by status" value={status} onChange={(e) => setStatus(e.target.value as DeliveryStatus | '')}>
              <option value="">every status</option>
              {STATUSES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
            <button type="button" onClick={() => void deliveries.reload()}>
              Refresh
            </button>
          </>
        }
      >
        <ErrorLine error={deliveries.error} />
        <DeliveriesTable deliveries={list} selected={selectedId} onSelect={setSelectedId} />
      </Panel>
      <ErrorLine error={detailError} />
      {detail ? (
        <DeliveryDetail
          key={detail.id}
          delivery={detail}
          onReplayed={(next) => {
            setDetail(next);
            void deliveries.reload();
          }}
        />
      ) : (
        <p className="muted">Select a delivery to see its attempts, payload and signature headers.</p>
      )}
    </section>
  );
}
