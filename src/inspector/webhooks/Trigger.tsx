import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ErrorLine, Panel, useAction, useLoad } from '../components/actions.tsx';
import type { paths } from '../api.generated.ts';

type EventType = NonNullable<paths['/__sandbox/events']['post']['requestBody']>['content']['application/json']['type'];

/** Emits an event (POST /__sandbox/events {workspaceId, type, data?}); its deliveries show up below. */
export function TriggerPanel({ workspaceId, onEmitted }: { workspaceId: string | undefined; onEmitted: () => void }) {
  const types = useLoad(() => unwrap(api.GET('/__sandbox/events/types')), []);
  const action = useAction();
  const [type, setType] = useState('');
  const [data, setData] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const chosen = type || types.value?.[0] || '';

  const emit = () =>
    action.run(async () => {
      if (!workspaceId) throw new Error('no workspace selected');
      let parsed: Record<string, unknown> | undefined;
      if (data.trim()) {
        try {
          parsed = JSON.parse(data) as Record<string, unknown>;
        } catch (err) {
          throw new Error(`data is not JSON: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
      setDone(null);
      const result = await unwrap(api.POST('/__sandbox/events', { body: { workspaceId, type: chosen as EventType, ...(parsed ? { data: parsed } : {}) } }));
      setDone(`${result.event.type} ${result.event.id} emitted: ${result.deliveryIds.length} deliver${result.deliveryIds.length === 1 ? 'y' : 'ies'}`);
      onEmitted();
    });

  return (
    <Panel title="Trigger an event" id="trigger">
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          void emit();
        }}
      >
        <label>
          Event type
          <select aria-label="Event type" value={chosen} onChange={(e) => setType(e.target.value)}>
            {(types.value ?? []).map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
        <label>
          Data
          <input
            aria-label="Event data"
            size={40}
            placeholder='optional JSON, e.g. {"id": "…"}; empty: a sample record'
            value={data}
            onChange={(e) => setData(e.target.value)}
          />
        </label>
        <button type="submit" className="primary" disabled={action.busy || !chosen || !workspaceId}>
          Trigger
        </button>
      </form>
      <ErrorLine error={action.error ?? types.error} />
      {done ? (
        <p className="muted" role="status">
          {done}
        </p>
      ) : null}
    </Panel>
  );
}
