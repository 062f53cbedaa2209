import { useCallback, useMemo, useState } from 'react';
import { Route, Switch } from 'wouter';
import { METHODS, NONE, isFiltered, matcher, useFilters, type StatusFilter } from '../requests/filters.ts';
import { requestLog, useRequestLog, LOG_CAPACITY, type LogSnapshot, type RequestEntry } from '../requests/log.ts';
import { RequestDetail } from '../requests/RequestDetail.tsx';
import { RequestTable } from '../requests/RequestTable.tsx';
import { useWorkspaces } from '../workspaces.tsx';
import '../requests/requests.css';

/**
 * Requests: the live log of /v1 traffic, and one request's details at
 * /requests/:requestId. docs/inspector.md, "Requests".
 */
export function RequestsView() {
  return (
    <Switch>
      <Route path="/:requestId">{(params) => <RequestDetail requestId={params.requestId} />}</Route>
      <Route>
        <RequestList />
      </Route>
    </Switch>
  );
}

const CONNECTION_TEXT = { connecting: '◌ connecting…', live: '● live', reconnecting: '○ disconnected, reconnecting…' } as const;

function RequestList() {
  const live = useRequestLog();
  const { workspaces } = useWorkspaces();
  const [filters, setFilters] = useFilters();
  const [frozen, setFrozen] = useState<LogSnapshot | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const shown = frozen ?? live;

  const rows = useMemo(() => {
    const keep = matcher(filters);
    const out: RequestEntry[] = [];
    for (let i = shown.entries.length - 1; i >= 0; i -= 1) {
      const entry = shown.entries[i]!;
      if (keep(entry)) out.push(entry);
    }
    return out;
  }, [shown.entries, filters]);

  const names = useMemo(() => new Map(workspaces.map((w) => [w.id, w.name])), [workspaces]);
  const workspaceName = useCallback((id: string | null) => (id === null ? '—' : (names.get(id) ?? id)), [names]);

  const clear = async () => {
    try {
      await requestLog.clear();
      setFrozen(null);
      setFailure(null);
    } catch (error) {
      setFailure(`Could not clear the log: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  return (
    <section className="requests" aria-label="Requests log">
      <div className="toolbar">
        <label>
          Status{' '}
          <select aria-label="Status class" value={filters.status} onChange={(e) => setFilters({ status: e.target.value as StatusFilter })}>
            <option value="">all</option>
            <option value="2xx">2xx</option>
            <option value="3xx">3xx</option>
            <option value="4xx">4xx</option>
            <option value="5xx">5xx</option>
            <option value="errors">4xx and 5xx</option>
          </select>
        </label>
        <label>
          Method{' '}
          <select aria-label="Method" value={filters.method} onChange={(e) => setFilters({ method: e.target.value })}>
            <option value="">all</option>
            {METHODS.map((m) => (
              <option key={m} value={m}>
                {m}
              </option>
            ))}
          </select>
        </label>
        <label>
          Path{' '}
          <input
            type="search"
            aria-label="Path contains"
            placeholder="/v1/bookings"
            value={filters.path}
            onChange={(e) => setFilters({ path: e.target.value })}
          />
        </label>
        <label>
          Workspace{' '}
          <select aria-label="Workspace filter" value={filters.workspace} onChange={(e) => setFilters({ workspace: e.target.value })}>
            <option value="">all</option>
            {workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
            <option value={NONE}>none (no known key)</option>
          </select>
        </label>
        {isFiltered(filters) ? (
          <button type="button" onClick={() => setFilters({ status: '', method: '', path: '', workspace: '' })}>
            Reset filters
          </button>
        ) : null}
        <span className="spacer" />
        <span className="muted" data-testid="request-count" aria-live="off">
          {rows.length.toLocaleString('en')} shown · {live.received.toLocaleString('en')} received
          {live.entries.length >= LOG_CAPACITY ? ` (last ${LOG_CAPACITY.toLocaleString('en')} kept)` : ''}
        </span>
        <button type="button" aria-pressed={frozen !== null} onClick={() => setFrozen(frozen ? null : live)}>
          {frozen ? `Resume (${Math.max(0, live.received - frozen.received).toLocaleString('en')} new)` : 'Pause'}
        </button>
        <button type="button" className="danger" onClick={() => void clear()}>
          Clear
        </button>
        <span role="status" aria-label="Stream" className={`conn ${live.connection}`}>
          {CONNECTION_TEXT[live.connection]}
        </span>
      </div>
      {failure ? (
        <p role="alert" className="error">
          {failure}
        </p>
      ) : null}
      {live.error ? (
        <p role="alert" className="error">
          {live.error}
        </p>
      ) : null}
      <RequestTable rows={rows} workspaceName={workspaceName} />
    </section>
  );
}
