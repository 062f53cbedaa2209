import { useState } from 'react';
import { api, unwrap, type DataOf } from '../api.ts';
import type { paths } from '../api.generated.ts';
import { ConfirmButton, ErrorLine, Panel, useAction, useLoad } from '../components/actions.tsx';
import type { Workspace } from '../workspaces.tsx';
import { DeliveryFaultForm, deliveryEffectOf, deliveryMatchOf } from './DeliveryFaultForm.tsx';

type FaultRule = DataOf<'/__sandbox/faults', 'get'>[number];
type FaultBody = NonNullable<paths['/__sandbox/faults']['post']['requestBody']>['content']['application/json'];

function matchOf(rule: FaultRule): string {
  if (rule.target === 'delivery') return deliveryMatchOf(rule);
  const parts = [rule.method ?? 'any method', rule.path ?? 'any path'];
  if (rule.workspaceId) parts.push(`workspace ${rule.workspaceId}`);
  if (rule.key) parts.push(`key ${rule.key}`);
  return parts.join(' ');
}

function effectOf(rule: FaultRule): string {
  if (rule.target === 'delivery') return deliveryEffectOf(rule) + (rule.probability !== undefined ? `, p=${rule.probability}` : '');
  const parts: string[] = [];
  if (rule.drop) parts.push('drop the connection');
  if (rule.status !== undefined) parts.push(`answer ${rule.status}`);
  if (rule.latencyMs) parts.push(`wait ${rule.latencyMs} ms`);
  if (rule.probability !== undefined) parts.push(`p=${rule.probability}`);
  return parts.join(', ') || 'none';
}

/** Fault rules (GET/POST /__sandbox/faults, DELETE /faults/:id), for requests and for webhook deliveries: list, add, remove. */
export function FaultsPanel({ workspace, version }: { workspace: Workspace | null; version: number }) {
  const faults = useLoad(() => unwrap(api.GET('/__sandbox/faults')), [version]);
  const action = useAction();
  const [method, setMethod] = useState('');
  const [path, setPath] = useState('/v1/**');
  const [status, setStatus] = useState('503');
  const [latency, setLatency] = useState('');
  const [times, setTimes] = useState('1');
  const [drop, setDrop] = useState(false);
  const [onlyWorkspace, setOnlyWorkspace] = useState(false);

  const add = () =>
    action.run(async () => {
      const body: FaultBody = {};
      if (method) body.method = method;
      if (path.trim()) body.path = path.trim();
      if (drop) body.drop = true;
      else if (status.trim()) body.status = Number(status);
      if (latency.trim()) body.latencyMs = Number(latency);
      if (times.trim()) body.times = Number(times);
      if (onlyWorkspace && workspace) body.workspaceId = workspace.id;
      await unwrap(api.POST('/__sandbox/faults', { body }));
      await faults.reload();
    });
  const remove = (id: string) =>
    action.run(async () => {
      await unwrap(api.DELETE('/__sandbox/faults/{id}', { params: { path: { id } } }));
      await faults.reload();
    });

  return (
    <Panel title="Fault rules" id="faults">
      <form
        className="row"
        aria-label="Add a fault rule"
        onSubmit={(event) => {
          event.preventDefault();
          void add();
        }}
      >
        <label>
          Method
          <select aria-label="Fault method" value={method} onChange={(e) => setMethod(e.target.value)}>
            <option value="">any</option>
            {['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          Path
          <input aria-label="Fault path" size={22} value={path} onChange={(e) => setPath(e.target.value)} placeholder="/v1/bookings/*" />
        </label>
        <label>
          Status
          <input aria-label="Fault status" size={4} value={status} disabled={drop} onChange={(e) => setStatus(e.target.value)} />
        </label>
        <label>
          Latency ms
          <input aria-label="Fault latency" size={6} value={latency} onChange={(e) => setLatency(e.target.value)} />
        </label>
        <label>
          Times
          <input aria-label="Fault times" size={3} value={times} onChange={(e) => setTimes(e.target.value)} />
        </label>
        <label>
          <input type="checkbox" checked={drop} onChange={(e) => setDrop(e.target.checked)} /> drop connection
        </label>
        <label>
          <input type="checkbox" checked={onlyWorkspace} disabled={!workspace} onChange={(e) => setOnlyWorkspace(e.target.checked)} /> only{' '}
          {workspace?.name ?? 'this workspace'}
        </label>
        <button type="submit" className="primary" disabled={action.busy}>
          Add fault
        </button>
      </form>
      <DeliveryFaultForm
        workspace={workspace}
        busy={action.busy}
        run={(add) =>
          void action.run(async () => {
            await add();
            await faults.reload();
          })
        }
      />
      <p className="muted">
        A rule answers the next “times” matching requests (path glob: * within a segment, ** across), then goes away; “Left” counts down. A delivery rule
        duplicates, holds, delays or drops webhook deliveries on the sandbox clock; a latency or hold rule lasts until removed, and removing one sends what it
        holds.
      </p>
      <ErrorLine error={action.error ?? faults.error} />
      <table aria-label="Fault rules">
        <thead>
          <tr>
            <th>Id</th>
            <th>Target</th>
            <th>Matches</th>
            <th>Effect</th>
            <th>Left</th>
            <th>Hits</th>
            <th>Created</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(faults.value ?? []).map((rule) => (
            <tr key={rule.id} data-testid={`fault-${rule.id}`}>
              <td className="mono">{rule.id}</td>
              <td>{rule.target === 'delivery' ? 'deliveries' : 'requests'}</td>
              <td className="mono">{matchOf(rule)}</td>
              <td>{effectOf(rule)}</td>
              <td>{rule.remaining ?? '∞'}</td>
              <td>{rule.hits}</td>
              <td className="mono">{rule.createdAt}</td>
              <td>
                <ConfirmButton
                  label="Remove"
                  ariaLabel={`Remove fault ${rule.id}`}
                  confirmLabel={`Confirm remove ${rule.id}`}
                  onConfirm={() => remove(rule.id)}
                  disabled={action.busy}
                />
              </td>
            </tr>
          ))}
          {faults.value && faults.value.length === 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                no fault rule: every request is answered normally
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </Panel>
  );
}
