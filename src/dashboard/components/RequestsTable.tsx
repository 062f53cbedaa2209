import { Text } from 'ink';
import { cell, clockTime, latency, statusTone, windowStart } from '../format.ts';
import { useTone } from '../hooks/use-tone.ts';
import type { RequestRow } from '../types.ts';
import { Line } from './Panel.tsx';

export interface RequestsTableProps {
  /** the line shown instead of rows when there are none */
  empty: string;
  rows: RequestRow[];
  selected: number;
  focused: boolean;
  width: number;
  height: number;
  workspaceNames: Record<string, string>;
  /** the REASON column: the terminal is 100 columns or wider (Panels) */
  withReason?: boolean;
}

/** The reason codes are at most this long (RATE_LIMIT_PER_SECOND is 21): the column shows them whole from 120 columns. */
const REASON_WIDTH = 21;
/** The path keeps at least this much before the request id is given room. */
const PATH_BEFORE_ID = 30;

/**
 * Column widths for a table `width` wide. With `withReason` (a terminal of 100 columns or
 * more, issue 38) a REASON column shows the short code of a refusal (X-Sandbox-Reason's
 * first word); in the 70-odd columns the wide layout leaves the table, it takes the KEY
 * column's place (the key is in the details). The request id appears only when the path
 * keeps PATH_BEFORE_ID columns beside it.
 */
export function requestColumns(width: number, withReason = width >= 100) {
  const reason = !withReason ? 0 : width >= 120 ? REASON_WIDTH : width >= 100 ? 16 : 14;
  const key = withReason && width < 100 ? 0 : width >= 120 || (!withReason && width >= 100) ? 16 : 12;
  const workspace = width >= 120 || (!withReason && width >= 100) ? 14 : width >= 100 ? 12 : 10;
  const fixed = { time: 8, method: 6, status: 3, latency: 7, workspace, key, reason };
  const columns = Object.values(fixed).filter((w) => w > 0);
  const used = columns.reduce((sum, w) => sum + w, 0) + columns.length; // each column and the gap before the path's neighbour
  const idWidth = width >= 160 ? 36 : 24;
  const id = width - used - idWidth - 1 >= PATH_BEFORE_ID ? idWidth : 0;
  return { ...fixed, id, path: Math.max(8, width - used - (id ? id + 1 : 0)) };
}

/** KEY_REVOKED from "KEY_REVOKED key tcs_... was revoked at ..."; "-" for a request served. */
export const reasonCode = (reason: string | null | undefined): string => reason?.split(' ', 1)[0] || '-';

/** The live request table: newest first, the selected row highlighted, scrolled to keep it in view. */
export function RequestsTable({ empty, rows, selected, focused, width, height, workspaceNames, withReason }: RequestsTableProps) {
  const tone = useTone();
  const c = requestColumns(width, withReason);
  const body = Math.max(0, height - 1);
  const start = windowStart(selected, rows.length, body);
  const header = [cell('TIME', c.time), cell('METHOD', c.method), cell('PATH', c.path), cell('ST', c.status), cell('LATENCY', c.latency, 'right'), cell('WORKSPACE', c.workspace), ...(c.key ? [cell('KEY', c.key)] : []), ...(c.reason ? [cell('REASON', c.reason)] : []), ...(c.id ? [cell('REQUEST ID', c.id)] : [])].join(' ');
  return (
    <>
      <Line dim>{header}</Line>
      {rows.length === 0 ? <Line dim>{cell(empty, width)}</Line> : null}
      {rows.slice(start, start + body).map((r, i) => (
        <Line key={r.requestId + String(start + i)} inverse={focused && start + i === selected}>
          {`${cell(clockTime(r.at), c.time)} ${cell(r.method, c.method)} ${cell(r.path, c.path)} `}
          <Text color={tone(statusTone(r.status))}>{cell(String(r.status), c.status)}</Text>
          {` ${[
            cell(latency(r.latencyMs), c.latency, 'right'),
            cell(r.workspaceId ? (workspaceNames[r.workspaceId] ?? r.workspaceId) : '-', c.workspace),
            ...(c.key ? [cell(r.keyPrefix ?? '-', c.key)] : []),
            ...(c.reason ? [cell(reasonCode(r.reason), c.reason)] : []),
            ...(c.id ? [cell(r.requestId, c.id)] : []),
          ].join(' ')}`}
        </Line>
      ))}
    </>
  );
}
