import { useState } from 'react';
import { api, unwrap } from '../api.ts';
import { ConfirmButton, ErrorLine, Panel, useAction, useLoad } from '../components/actions.tsx';
import type { Workspace } from '../workspaces.tsx';
import { KeyOnce } from './KeyOnce.tsx';
import { ScopePicker } from './ScopePicker.tsx';

/** Organization keys the workspace issued (GET /__sandbox/org-keys, /organizations): create and revoke. */
export function OrgKeysPanel({ workspace }: { workspace: Workspace | null }) {
  const wsId = workspace?.id;
  const query = wsId ? { params: { query: { workspaceId: wsId } } } : {};
  const keys = useLoad(() => unwrap(api.GET('/__sandbox/org-keys', query)), [wsId]);
  const orgs = useLoad(() => unwrap(api.GET('/__sandbox/organizations', query)), [wsId]);
  const action = useAction();
  const [org, setOrg] = useState('');
  const [scopes, setScopes] = useState<string[] | null>([]);
  const [products, setProducts] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<{ key: string; keyPrefix: string } | null>(null);
  const orgId = org || orgs.value?.[0]?.id || '';

  const create = () =>
    action.run(async () => {
      if (!orgId) throw new Error('this workspace has no organization');
      const expiresAt = expires.trim() || null;
      if (expiresAt && Number.isNaN(Date.parse(expiresAt))) throw new Error(`"${expiresAt}" is not an ISO 8601 time`);
      const key = await unwrap(
        api.POST('/__sandbox/organizations/{id}/api-keys', {
          params: { path: { id: orgId } },
          body: { scopes: scopes ?? [], productIds: products.split(/[\s,]+/).filter(Boolean), expiresAt },
        }),
      );
      setCreated({ key: key.key, keyPrefix: key.keyPrefix });
      await keys.reload();
    });
  const revoke = (id: string) =>
    action.run(async () => {
      await unwrap(api.DELETE('/__sandbox/org-keys/{id}', { params: { path: { id } } }));
      await keys.reload();
    });

  return (
    <Panel title="Organization keys" id="org-keys">
      {created ? <KeyOnce keyText={created.key} prefix={created.keyPrefix} onDone={() => setCreated(null)} /> : null}
      <ErrorLine error={action.error ?? keys.error ?? orgs.error} />
      <table aria-label="Organization keys">
        <thead>
          <tr>
            <th>Organization</th>
            <th>Prefix</th>
            <th>Scopes</th>
            <th>Products</th>
            <th>Status</th>
            <th>Expires</th>
            <th>Last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {(keys.value ?? []).map((key) => (
            <tr key={key.id}>
              <td>{key.organizationName}</td>
              <td className="mono">{key.keyPrefix}…</td>
              <td className="wrap mono">{key.scopes.join(' ') || '(none)'}</td>
              <td className="wrap mono">{key.productIds.length ? key.productIds.join(' ') : 'all'}</td>
              <td>
                <span className={`badge ${key.status === 'active' ? 'ok' : 'bad'}`}>{key.status}</span>
              </td>
              <td className="mono">{key.expiresAt ?? 'never'}</td>
              <td className="mono">{key.lastUsedAt}</td>
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
          {keys.value && keys.value.length === 0 ? (
            <tr>
              <td colSpan={8} className="muted">
                no organization key issued by this workspace
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
      <form
        className="create-key"
        aria-label="Create an organization key"
        onSubmit={(event) => {
          event.preventDefault();
          void create();
        }}
      >
        <h3>New organization key</h3>
        <div className="row">
          <label>
            Organization
            <select aria-label="Organization" value={orgId} onChange={(e) => setOrg(e.target.value)}>
              {(orgs.value ?? []).map((o) => (
                <option key={o.id} value={o.id}>
                  {o.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Products <input aria-label="Product ids" placeholder="empty = all products" value={products} onChange={(e) => setProducts(e.target.value)} />
          </label>
          <label>
            Expires <input aria-label="Expires at" placeholder="ISO 8601, empty = never" value={expires} onChange={(e) => setExpires(e.target.value)} />
          </label>
          <button type="submit" className="primary" disabled={action.busy || !orgId}>
            Create organization key
          </button>
        </div>
        <ScopePicker value={scopes} onChange={setScopes} allowFull={false} label="Scopes of the new organization key" />
      </form>
    </Panel>
  );
}
