import { useEffect, useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ConfirmButton, ErrorLine, Panel, useAction, useLoad } from '../components/actions.tsx';
import { openStream } from '../stream.ts';
import { useWorkspaces, type Workspace } from '../workspaces.tsx';
import { KeyOnce } from './KeyOnce.tsx';
import { ScopePicker } from './ScopePicker.tsx';

/**
 * The last request of each key prefix, from the request log (GET
 * /__sandbox/requests, the last 1,000 requests) kept current by the stream's
 * `request` events: the control plane keeps no last-used time for workspace keys.
 */
function useLastUsed(): Map<string, string> {
  const log = useLoad(() => unwrap(api.GET('/__sandbox/requests', { params: { query: { limit: 1000 } } })), []);
  const [live, setLive] = useState<Map<string, string>>(new Map());
  useEffect(
    () =>
      openStream(
        ['request'],
        (event, data) => {
          if (event !== 'request') return;
          const request = data as { keyPrefix?: string | null; at?: string };
          if (!request.keyPrefix || !request.at) return;
          const { keyPrefix, at } = request;
          setLive((previous) => {
            if ((previous.get(keyPrefix) ?? '') >= at) return previous;
            const next = new Map(previous);
            next.set(keyPrefix, at);
            return next;
          });
        },
        undefined,
        { capture: false },
      ), // only that a key was used: no request's headers or bodies kept for it
    [],
  );
  const last = new Map<string, string>();
  for (const request of log.value ?? []) {
    if (request.keyPrefix && (last.get(request.keyPrefix) ?? '') < request.at) last.set(request.keyPrefix, request.at);
  }
  for (const [prefix, at] of live) if ((last.get(prefix) ?? '') < at) last.set(prefix, at);
  return last;
}

export function WorkspaceKeysPanel({ workspace }: { workspace: Workspace | null }) {
  const { refresh } = useWorkspaces();
  const action = useAction();
  const lastUsed = useLastUsed();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[] | null>(null);
  const [created, setCreated] = useState<{ key: string; keyPrefix: string } | null>(null);

  const create = () =>
    action.run(async () => {
      if (!workspace) return;
      const key = await unwrap(
        api.POST('/__sandbox/workspaces/{id}/keys', {
          params: { path: { id: workspace.id } },
          body: { ...(name.trim() ? { name: name.trim() } : {}), scopes },
        }),
      );
      setCreated({ key: key.key, keyPrefix: key.keyPrefix });
      setName('');
      await refresh();
    });
  const revoke = (id: string) =>
    action.run(async () => {
      await unwrap(api.DELETE('/__sandbox/keys/{id}', { params: { path: { id } } }));
      await refresh();
    });

  return (
    <Panel title={`Workspace keys${workspace ? ` — ${workspace.name}` : ''}`} id="workspace-keys">
      {created ? <KeyOnce keyText={created.key} prefix={created.keyPrefix} onDone={() => setCreated(null)} /> : null}
      <ErrorLine error={action.error} />
      <table aria-label="Workspace keys">
        <thead>
          <tr>
            <th>Name</th>
            <th>Prefix</th>
            <th>Scopes</th>
            <th>Status</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(workspace?.keys ?? []).map((key) => (
            <tr key={key.id} data-testid={`key-${key.id}`}>
              <td>{key.name}</td>
              <td className="mono">{key.keyPrefix}…</td>
              <td className="wrap mono">{key.scopes === null ? 'full access' : key.scopes.join(' ') || '(none)'}</td>
              <td>
                <span className={`badge ${key.status === 'active' ? 'ok' : 'bad'}`}>{key.status}</span>
              </td>
              <td className="mono">{lastUsed.get(key.keyPrefix) ?? <span className="muted">not in the request log</span>}</td>
              <td>
                {key.status === 'active' ? (
                  <ConfirmButton
                    label="Revoke"
                    ariaLabel={`Revoke ${key.keyPrefix}`}
                    confirmLabel={`Confirm revoke ${key.keyPrefix}`}
                    onConfirm={() => revoke(key.id)}
                    disabled={action.busy}
                  />
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form
        className="create-key"
        aria-label="Create a workspace key"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <h3>New workspace key</h3>
        <div className="row">
          <label>
            Name <input aria-label="Key name" value={name} placeholder="ci" onChange={(e) => setName(e.target.value)} />
          </label>
          <button type="submit" className="primary" disabled={action.busy || !workspace}>
            Create key
          </button>
        </div>
        <ScopePicker value={scopes} onChange={setScopes} allowFull label="Scopes of the new key" />
      </form>
    </Panel>
  );
}
