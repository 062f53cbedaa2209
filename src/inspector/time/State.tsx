import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ConfirmButton, ErrorLine, JSON_HEADERS, Panel, useAction, useLoad } from '../components/actions.tsx';
import type { Workspace } from '../workspaces.tsx';

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

type Scope = 'sandbox' | 'workspace';

/**
 * Reset and snapshots, of the whole sandbox or of the selected workspace
 * (POST /__sandbox/reset, /workspaces/:id/reset, /snapshots...). Restore,
 * delete and reset ask for a confirmation in the page first.
 */
export function StatePanel({ workspace, version, onChanged }: { workspace: Workspace | null; version: number; onChanged: () => void }) {
  const [scope, setScope] = useState<Scope>('sandbox');
  const wsId = workspace?.id;
  const snapshots = useLoad(
    async () =>
      scope === 'sandbox'
        ? unwrap(api.GET('/__sandbox/snapshots'))
        : wsId
          ? unwrap(api.GET('/__sandbox/workspaces/{id}/snapshots', { params: { path: { id: wsId } } }))
          : [],
    [scope, wsId, version],
  );
  const action = useAction();
  const [name, setName] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const what = scope === 'sandbox' ? 'the whole sandbox' : `workspace ${workspace?.name ?? ''}`;

  const act = (fn: () => Promise<unknown>, message: string) =>
    action.run(async () => {
      setDone(null);
      await fn();
      setDone(message);
      await snapshots.reload();
      onChanged();
    });

  const take = () =>
    act(async () => {
      const snapshotName = name.trim();
      if (scope === 'sandbox') await unwrap(api.POST('/__sandbox/snapshots', { body: { name: snapshotName } }));
      else if (wsId) await unwrap(api.POST('/__sandbox/workspaces/{id}/snapshots', { params: { path: { id: wsId } }, body: { name: snapshotName } }));
      setName('');
    }, `snapshot "${name.trim()}" taken of ${what}`);
  const restore = (snapshot: string) =>
    act(async () => {
      if (scope === 'sandbox') await unwrap(api.POST('/__sandbox/snapshots/{name}/restore', { params: { path: { name: snapshot } }, headers: JSON_HEADERS }));
      else if (wsId)
        await unwrap(
          api.POST('/__sandbox/workspaces/{id}/snapshots/{name}/restore', { params: { path: { id: wsId, name: snapshot } }, headers: JSON_HEADERS }),
        );
    }, `restored snapshot "${snapshot}"`);
  const remove = (snapshot: string) =>
    act(async () => {
      if (scope === 'sandbox') await unwrap(api.DELETE('/__sandbox/snapshots/{name}', { params: { path: { name: snapshot } }, headers: JSON_HEADERS }));
      else if (wsId)
        await unwrap(api.DELETE('/__sandbox/workspaces/{id}/snapshots/{name}', { params: { path: { id: wsId, name: snapshot } }, headers: JSON_HEADERS }));
    }, `deleted snapshot "${snapshot}"`);
  const reset = () =>
    act(
      async () => {
        if (scope === 'sandbox') await unwrap(api.POST('/__sandbox/reset', { headers: JSON_HEADERS }));
        else if (wsId) await unwrap(api.POST('/__sandbox/workspaces/{id}/reset', { params: { path: { id: wsId } }, headers: JSON_HEADERS }));
      },
      scope === 'sandbox' ? 'the sandbox is back to its fixtures and its starting time' : `workspace ${workspace?.name ?? ''} is back to its template`,
    );

  return (
    <Panel
      title="State: reset and snapshots"
      id="state"
      actions={
        <div className="row" role="radiogroup" aria-label="Scope">
          <label>
            <input type="radio" name="state-scope" checked={scope === 'sandbox'} onChange={() => setScope('sandbox')} /> whole sandbox
          </label>
          <label>
            <input type="radio" name="state-scope" checked={scope === 'workspace'} onChange={() => setScope('workspace')} disabled={!workspace} /> this
            workspace{workspace ? ` (${workspace.name})` : ''}
          </label>
        </div>
      }
    >
      <div className="row">
        <ConfirmButton
          label={scope === 'sandbox' ? 'Reset sandbox' : 'Reset workspace'}
          confirmLabel={`Confirm reset of ${what}`}
          onConfirm={reset}
          disabled={action.busy}
        />
        <span className="muted">
          {scope === 'sandbox'
            ? 'every workspace back to its fixtures, the clock back to where it started'
            : 'this workspace back to its template; its keys stay, its clock keeps its advance'}
        </span>
      </div>
      <form
        className="row"
        onSubmit={(event) => {
          event.preventDefault();
          void take();
        }}
      >
        <input aria-label="Snapshot name" placeholder="before-checkout" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" className="primary" disabled={action.busy || name.trim() === ''}>
          Take snapshot
        </button>
        <span className="muted">kept in memory by this sandbox process</span>
      </form>
      <ErrorLine error={action.error ?? snapshots.error} />
      {done ? (
        <p className="muted" role="status">
          {done}
        </p>
      ) : null}
      <table aria-label="Snapshots">
        <thead>
          <tr>
            <th>Name</th>
            <th>Taken at</th>
            <th>Size</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(snapshots.value ?? []).map((snapshot) => (
            <tr key={snapshot.name} data-testid={`snapshot-${snapshot.name}`}>
              <td className="mono">{snapshot.name}</td>
              <td className="mono">{snapshot.createdAt}</td>
              <td>{formatBytes(snapshot.bytes)}</td>
              <td className="actions">
                <ConfirmButton
                  label="Restore"
                  ariaLabel={`Restore ${snapshot.name}`}
                  confirmLabel={`Confirm restore of ${snapshot.name}`}
                  onConfirm={() => restore(snapshot.name)}
                  disabled={action.busy}
                />
                <ConfirmButton
                  label="Delete"
                  ariaLabel={`Delete ${snapshot.name}`}
                  confirmLabel={`Confirm delete of ${snapshot.name}`}
                  onConfirm={() => remove(snapshot.name)}
                  disabled={action.busy}
                />
              </td>
            </tr>
          ))}
          {snapshots.value && snapshots.value.length === 0 ? (
            <tr>
              <td colSpan={4} className="muted">
                no snapshot of {what} yet
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </Panel>
  );
}
