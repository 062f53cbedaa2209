import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import type { paths } from '../api.generated.ts';
import type { Workspace } from '../workspaces.tsx';
import { formatDuration, parseDuration } from './duration.ts';

type FaultBody = NonNullable<paths['/__sandbox/faults']['post']['requestBody']>['content']['application/json'];
type Rule = { target?: string; event?: string; subscriptionId?: string; workspaceId?: string } & Partial<
  Record<'duplicate' | 'drop', boolean> & Record<'latencyMs' | 'reorderMs', number> & { holdUntil: string }
>;

const ACTIONS = ['duplicate', 'reorder', 'latency', 'drop', 'hold'] as const;
type Action = (typeof ACTIONS)[number];
const TAKES_TIME: Record<Action, string | null> = {
  duplicate: 'after (optional)',
  reorder: 'held for',
  latency: 'late by',
  drop: null,
  hold: 'until (30s or ISO time)',
};

/** A delivery rule's matches and effect, as the fault table shows them (docs/webhooks.md, "Testing your receiver"). */
export function deliveryMatchOf(rule: Rule): string {
  const parts = [`deliveries of ${rule.event ?? 'any event'}`];
  if (rule.subscriptionId) parts.push(`to ${rule.subscriptionId}`);
  if (rule.workspaceId) parts.push(`workspace ${rule.workspaceId}`);
  return parts.join(' ');
}

export function deliveryEffectOf(rule: Rule): string {
  if (rule.duplicate) return rule.latencyMs ? `duplicate, ${formatDuration(rule.latencyMs)} after the first answer` : 'duplicate after the first answer';
  if (rule.reorderMs !== undefined) return `reorder: hold ${formatDuration(rule.reorderMs)}`;
  if (rule.holdUntil !== undefined) return `hold until ${rule.holdUntil}`;
  if (rule.drop) return 'drop the first attempt';
  return `late ${formatDuration(rule.latencyMs ?? 0)}`;
}

/** Adds a delivery rule (POST /__sandbox/faults with target "delivery"): one action, an event pattern, how many times. */
export function DeliveryFaultForm({ workspace, busy, run }: { workspace: Workspace | null; busy: boolean; run: (add: () => Promise<void>) => void }) {
  const [action, setAction] = useState<Action>('duplicate');
  const [time, setTime] = useState('');
  const [event, setEvent] = useState('');
  const [times, setTimes] = useState('');
  const [onlyWorkspace, setOnlyWorkspace] = useState(false);

  const add = async () => {
    const body: FaultBody = { target: 'delivery' };
    const ms = time.trim() && action !== 'hold' ? parseDuration(time) : undefined;
    if (action === 'duplicate') Object.assign(body, { duplicate: true }, ms !== undefined ? { latencyMs: ms } : {});
    if (action === 'reorder') body.reorderMs = ms ?? 1000;
    if (action === 'latency') body.latencyMs = ms ?? 1000;
    if (action === 'drop') body.drop = true;
    if (action === 'hold') body.holdUntil = time.trim() || '30s';
    if (event.trim()) body.event = event.trim();
    if (times.trim()) body.times = Number(times);
    if (onlyWorkspace && workspace) body.workspaceId = workspace.id;
    await unwrap(api.POST('/__sandbox/faults', { body }));
  };

  return (
    <form
      className="row"
      aria-label="Add a delivery fault rule"
      onSubmit={(e) => {
        e.preventDefault();
        run(add);
      }}
    >
      <label>
        Deliveries
        <select aria-label="Delivery rule action" value={action} onChange={(e) => setAction(e.target.value as Action)}>
          {ACTIONS.map((a) => (
            <option key={a}>{a}</option>
          ))}
        </select>
      </label>
      {TAKES_TIME[action] ? (
        <label>
          {TAKES_TIME[action]}
          <input
            aria-label="Delivery rule duration"
            size={10}
            value={time}
            onChange={(e) => setTime(e.target.value)}
            placeholder={action === 'hold' ? '30s' : '3s'}
          />
        </label>
      ) : null}
      <label>
        Event
        <input aria-label="Delivery rule event" size={14} value={event} onChange={(e) => setEvent(e.target.value)} placeholder="booking.*" />
      </label>
      <label>
        Times
        <input aria-label="Delivery rule count" size={3} value={times} onChange={(e) => setTimes(e.target.value)} placeholder="1" />
      </label>
      <label>
        <input type="checkbox" checked={onlyWorkspace} disabled={!workspace} onChange={(e) => setOnlyWorkspace(e.target.checked)} /> only{' '}
        {workspace?.name ?? 'this workspace'}
      </label>
      <button type="submit" className="primary" disabled={busy}>
        Add delivery fault
      </button>
    </form>
  );
}
