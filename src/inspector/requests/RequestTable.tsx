import { useVirtualizer } from '@tanstack/react-virtual';
import { useLayoutEffect, useRef } from 'react';
import { Link, useLocation } from 'wouter';
import { formatLatency, reasonCode, statusClass } from './format.ts';
import type { RequestEntry } from './log.ts';

export const ROW_HEIGHT = 30;

/**
 * The log's rows, newest first, virtualised (@tanstack/react-virtual): only the rows in
 * view (and a few beyond) are in the DOM, whatever the log holds. When the user has
 * scrolled down, rows arriving at the top do not move what they are reading.
 */
export function RequestTable({ rows, workspaceName }: { rows: readonly RequestEntry[]; workspaceName: (id: string | null) => string }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [, navigate] = useLocation();
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
    // rows keyed by their place, not their request: when new rows arrive on top, the same DOM rows
    // take new text, instead of every row moving and new ones being built (which would cost the page on every event)
  });

  // keep the reader's place when new rows arrive above it; whether they scrolled is kept from the
  // scroll events, because reading scrollTop here would force a layout at every draw
  const top = useRef<string | null>(null);
  const scrolled = useRef(false);
  useLayoutEffect(() => {
    const element = scroller.current;
    const previous = top.current;
    top.current = rows[0]?.requestId ?? null;
    if (!element || previous === null || !scrolled.current || rows[0]?.requestId === previous) return;
    const moved = rows.findIndex((row) => row.requestId === previous);
    if (moved > 0) element.scrollTop += moved * ROW_HEIGHT;
  }, [rows]);

  return (
    <div className="req-table" role="table" aria-label="Requests" aria-rowcount={rows.length + 1}>
      <div className="req-row req-head" role="row">
        <span role="columnheader">Time (UTC)</span>
        <span role="columnheader">Method</span>
        <span role="columnheader">Path</span>
        <span role="columnheader">Status</span>
        <span role="columnheader" className="num">
          Latency
        </span>
        <span role="columnheader">Workspace</span>
        <span role="columnheader">Key</span>
        <span role="columnheader">Notes</span>
      </div>
      <div className="req-scroll" ref={scroller} data-testid="request-rows" onScroll={(event) => void (scrolled.current = event.currentTarget.scrollTop > 0)}>
        {rows.length === 0 ? <p className="muted req-empty">No requests yet. Send one to /v1 and it shows here.</p> : null}
        <div className="req-sizer" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const entry = rows[item.index]!;
            return (
              <div
                key={item.key}
                className="req-row"
                role="row"
                aria-rowindex={item.index + 2}
                data-request-id={entry.requestId}
                style={{ transform: `translateY(${item.start}px)` }}
                onClick={(event) => {
                  if ((event.target as HTMLElement).closest('a')) return;
                  navigate(`/${entry.requestId}`);
                }}
              >
                <span role="cell" className="mono muted">
                  {entry.at}
                </span>
                <span role="cell" className="mono">
                  {entry.method}
                </span>
                <span role="cell" className="mono req-path" title={entry.path}>
                  <Link href={`/${entry.requestId}`}>{entry.path}</Link>
                </span>
                <span role="cell">
                  <span className={statusClass(entry.status)}>{entry.status}</span>
                </span>
                <span role="cell" className="num mono">
                  {formatLatency(entry.latencyMs)}
                </span>
                <span role="cell" className="ellipsis" title={entry.workspaceId ?? undefined}>
                  {workspaceName(entry.workspaceId)}
                </span>
                <span role="cell" className="mono ellipsis">
                  {entry.keyPrefix ?? '—'}
                </span>
                <span role="cell" className="ellipsis">
                  {entry.reason ? (
                    <span className="badge bad" title={entry.reason}>
                      {reasonCode(entry.reason)}
                    </span>
                  ) : null}
                  {entry.warnings?.map((w) => (
                    <span key={w.code} className="badge warn" title={w.message}>
                      ⚠ {w.code}
                    </span>
                  ))}
                </span>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
