import { ErrorLine } from '../components/actions.tsx';
import { useEffect, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'wouter';
import { loadPage, PAGE_SIZE, type DataPage } from './api.ts';
import { useLoad } from './useLoad.ts';
import { useDataWorkspace } from './workspace.ts';

/**
 * One collection, a page of 100 records (?offset=), searched by exact id (?id=) or text (?q=).
 * Newest first unless ?order=stored (oldest first, the booking just made would be row 92, below the fold).
 */
export function CollectionPage({ collection }: { collection: string }) {
  const { workspaceId, withWorkspace } = useDataWorkspace();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const id = params.get('id') ?? '';
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const order = params.get('order') === 'stored' ? 'stored' : 'newest';
  const key = workspaceId ? JSON.stringify([workspaceId, collection, q, id, offset, order]) : null;
  const { data, error, loading } = useLoad(key, () => loadPage(workspaceId!, collection, { offset, order, ...(q ? { q } : {}), ...(id ? { id } : {}) }));

  const go = (change: Record<string, string | number | null>) =>
    setParams((prev) => {
      const next = new URLSearchParams(prev);
      for (const [name, value] of Object.entries(change)) {
        if (value === null || value === '' || value === 0) next.delete(name);
        else next.set(name, String(value));
      }
      if (workspaceId) next.set('workspace', workspaceId);
      return next;
    });

  return (
    <section className="data-page" aria-label={`Collection ${collection}`}>
      <div className="data-head">
        <h1>{collection}</h1>
        <SearchForm key={`${collection} ${q} ${id}`} q={q} id={id} onSearch={(search) => go({ ...search, offset: null })} />
        <label className="data-order">
          Order{' '}
          <select aria-label="Order" value={order} onChange={(e) => go({ order: e.target.value === 'stored' ? 'stored' : null, offset: null })}>
            <option value="newest">newest first</option>
            <option value="stored">oldest first (as stored)</option>
          </select>
        </label>
      </div>
      <ErrorLine error={error} />
      {data ? (
        <>
          <Pager page={data} onOffset={(next) => go({ offset: next })} loading={loading} />
          <RecordTable page={data} hrefFor={(recordId) => withWorkspace(`/${collection}/${encodeURIComponent(recordId)}`)} />
        </>
      ) : error ? null : (
        <p className="muted">Loading…</p>
      )}
    </section>
  );
}

function SearchForm({ q, id, onSearch }: { q: string; id: string; onSearch: (search: { q: string; id: string }) => void }) {
  const [text, setText] = useState(q);
  const [exact, setExact] = useState(id);
  useEffect(() => {
    setText(q);
    setExact(id);
  }, [q, id]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSearch({ q: text.trim(), id: exact.trim() });
  };
  return (
    <form className="data-search" role="search" onSubmit={submit}>
      <input type="search" aria-label="Record id" placeholder="id (exact)" value={exact} onChange={(e) => setExact(e.target.value)} />
      <input type="search" aria-label="Search text" placeholder="text in the record" value={text} onChange={(e) => setText(e.target.value)} />
      <button type="submit" className="primary">
        Search
      </button>
      {q || id ? (
        <button type="button" onClick={() => onSearch({ q: '', id: '' })}>
          Show all
        </button>
      ) : null}
    </form>
  );
}

function Pager({ page, onOffset, loading }: { page: DataPage; onOffset: (offset: number) => void; loading: boolean }) {
  const first = page.rows.length === 0 ? 0 : page.offset + 1;
  const last = page.offset + page.rows.length;
  const total = `${page.totalIsExact ? '' : 'at least '}${page.total.toLocaleString('en')}`;
  const more = page.totalIsExact ? last < page.total : page.rows.length === page.limit;
  return (
    <div className="pager">
      <span data-testid="page-range">
        {first.toLocaleString('en')}–{last.toLocaleString('en')} of {total}
      </span>
      <button type="button" disabled={page.offset === 0} onClick={() => onOffset(Math.max(0, page.offset - PAGE_SIZE))}>
        ← Previous
      </button>
      <button type="button" disabled={!more} onClick={() => onOffset(page.offset + PAGE_SIZE)}>
        Next →
      </button>
      {loading ? <span className="muted">loading…</span> : null}
    </div>
  );
}

/** id, then up to six fields of the page's records whose values are plain (strings, numbers, booleans). */
function columnsOf(rows: DataPage['rows']): string[] {
  const columns: string[] = [];
  for (const row of rows.slice(0, 20)) {
    for (const [name, value] of Object.entries(row)) {
      if (name === 'id' || name === 'workspaceId' || columns.includes(name)) continue;
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) columns.push(name);
      if (columns.length === 6) return columns;
    }
  }
  return columns;
}

function cell(value: unknown): string {
  if (value === undefined) return '';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.length}]`;
  if (typeof value === 'object') return '{…}';
  return String(value);
}

function RecordTable({ page, hrefFor }: { page: DataPage; hrefFor: (recordId: string) => string }) {
  if (page.rows.length === 0) return <p className="muted">No records{page.offset > 0 ? ' on this page' : ''}.</p>;
  const columns = columnsOf(page.rows);
  return (
    <div className="data-table-wrap">
      <table className="data-table" aria-label={`${page.collection} records`}>
        <thead>
          <tr>
            <th>id</th>
            {columns.map((c) => (
              <th key={c}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {page.rows.map((row) => (
            <tr key={row.id}>
              <td className="mono">
                <Link href={hrefFor(row.id)}>{row.id}</Link>
              </td>
              {columns.map((c) => {
                const text = cell((row as Record<string, unknown>)[c]);
                return (
                  <td key={c} title={text.length > 40 ? text : undefined}>
                    {text}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
