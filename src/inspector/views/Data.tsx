import { ErrorLine } from '../components/actions.tsx';
import { useEffect } from 'react';
import { Link, Route, Switch, useRoute } from 'wouter';
import { loadCollections } from '../data/api.ts';
import { CollectionPage } from '../data/CollectionPage.tsx';
import { RecordPage } from '../data/RecordPage.tsx';
import { useLoad } from '../data/useLoad.ts';
import { useDataWorkspace } from '../data/workspace.ts';
import { useWorkspaces } from '../workspaces.tsx';
import '../data/data.css';

/**
 * Data: every collection of the picked workspace by its API name, a page of
 * 100 records at a time with search by id and text, and one record's JSON with its
 * related records as links. Paths: /data, /data/:collection, /data/:collection/:recordId,
 * each with ?workspace=<id>. docs/inspector.md, "Data".
 */
export function DataPage() {
  const { refresh } = useWorkspaces();
  // created workspaces appear without reloading the page
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return (
    <div className="data-layout">
      <Collections />
      <div className="data-main">
        <Switch>
          <Route path="/:collection/:recordId">{(params) => <RecordPage collection={params.collection} recordId={params.recordId} />}</Route>
          <Route path="/:collection">{(params) => <CollectionPage collection={params.collection} />}</Route>
          <Route>
            <p className="muted">Pick a collection on the left: its records open here, 100 a page.</p>
          </Route>
        </Switch>
      </div>
    </div>
  );
}

function Collections() {
  const { workspaceId, withWorkspace } = useDataWorkspace();
  const { data, error } = useLoad(workspaceId, () => loadCollections(workspaceId!));
  const [, list] = useRoute<{ collection: string }>('/:collection');
  const [, record] = useRoute<{ collection: string; recordId: string }>('/:collection/:recordId');
  const current = list?.collection ?? record?.collection;
  return (
    <nav className="data-collections" aria-label="Collections">
      <h2>Collections</h2>
      <ErrorLine error={error} />
      {data ? (
        <ul>
          {data.map((c) => (
            <li key={c.name}>
              <Link
                href={withWorkspace(`/${c.name}`)}
                className={c.name === current || c.stored === current ? 'active' : ''}
                aria-current={c.name === current ? 'page' : undefined}
              >
                <span>{c.name}</span>
                <span className="count">{c.count.toLocaleString('en')}</span>
              </Link>
            </li>
          ))}
        </ul>
      ) : error ? null : (
        <p className="muted">Loading…</p>
      )}
    </nav>
  );
}
