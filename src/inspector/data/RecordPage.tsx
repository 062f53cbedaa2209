import { ErrorLine } from '../components/actions.tsx';
import { Link } from 'wouter';
import { JsonView } from '../components/JsonView.tsx';
import { loadPage, loadRecord } from './api.ts';
import { useLoad } from './useLoad.ts';
import { useDataWorkspace } from './workspace.ts';

/** One record: its JSON (ids of other records are links), what it points to, and what points to it. */
export function RecordPage({ collection, recordId }: { collection: string; recordId: string }) {
  const { workspaceId, withWorkspace } = useDataWorkspace();
  const key = workspaceId ? JSON.stringify([workspaceId, collection, recordId]) : null;
  const { data, error } = useLoad(key, () => loadRecord(workspaceId!, collection, recordId));
  const recordHref = (to: string, id: string) => withWorkspace(`/${to}/${encodeURIComponent(id)}`);
  return (
    <section className="data-record" aria-label="Record">
      <p className="crumbs">
        <Link href={withWorkspace(`/${collection}`)}>{collection}</Link> / <span className="mono">{recordId}</span>
      </p>
      <ErrorLine error={error} />
      {data ? (
        <>
          <h1 className="mono" data-testid="record-id">
            {data.record.id}
          </h1>
          <div className="record-grid">
            <JsonView
              value={data.record}
              label="Record JSON"
              linkFor={(path) => {
                const link = data.links.find((l) => l.field === path && l.exists);
                return link ? recordHref(link.collection, link.id) : null;
              }}
            />
            <aside className="record-links">
              <h2>Points to</h2>
              {data.links.length === 0 ? <p className="muted">No other record.</p> : null}
              <ul aria-label="Points to">
                {data.links.map((link) => (
                  <li key={`${link.field} ${link.id}`}>
                    <span className="muted mono">{link.field}</span> →{' '}
                    {link.exists ? (
                      <Link href={recordHref(link.collection, link.id)}>
                        {link.collection} <span className="mono">{link.id}</span>
                      </Link>
                    ) : (
                      <span>
                        {link.collection} <span className="mono">{link.id}</span> <span className="badge warn">missing</span>
                      </span>
                    )}
                  </li>
                ))}
              </ul>
              <h2>Pointed to by</h2>
              {data.related.length === 0 ? <p className="muted">No other record.</p> : null}
              <ul aria-label="Pointed to by">
                {data.related.map((rel) => (
                  <li key={`${rel.collection} ${rel.field}`}>
                    <Link href={withWorkspace(`/${rel.collection}?q=${encodeURIComponent(rel.q)}`)}>
                      {rel.count.toLocaleString('en')} {rel.collection}
                    </Link>{' '}
                    <span className="muted">by {rel.field}</span>
                    {rel.count > 0 && rel.count <= RELATED_LISTED ? (
                      <RelatedIds
                        workspaceId={workspaceId!}
                        collection={rel.collection}
                        field={rel.field}
                        q={rel.q}
                        recordId={data.record.id}
                        hrefFor={(id) => recordHref(rel.collection, id)}
                      />
                    ) : null}
                  </li>
                ))}
              </ul>
            </aside>
          </div>
        </>
      ) : error ? null : (
        <p className="muted">Loading…</p>
      )}
    </section>
  );
}

/** related records listed one by one (as links) when there are this many or fewer */
const RELATED_LISTED = 20;

function RelatedIds(props: { workspaceId: string; collection: string; field: string; q: string; recordId: string; hrefFor: (id: string) => string }) {
  const { workspaceId, collection, field, q, recordId, hrefFor } = props;
  const { data } = useLoad(JSON.stringify([workspaceId, collection, q]), () => loadPage(workspaceId, collection, { offset: 0, q }));
  if (!data) return null;
  // `q` is a text search: keep the records whose field holds the id itself
  const rows = data.rows.filter((row) => (row as Record<string, unknown>)[field] === recordId);
  return (
    <ul className="related-ids" aria-label={`${collection} by ${field}`}>
      {rows.map((row) => (
        <li key={row.id}>
          <Link href={hrefFor(row.id)} className="mono">
            {row.id}
          </Link>
        </li>
      ))}
    </ul>
  );
}
