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

/** The reason codes are at most this long (RATE_LIMIT_PER_SECOND is 21): the column shows them whole in a table of 120 columns. */
const REASON_WIDTH = 21;
/** With the REASON column, the request id and the key prefix are shown only while the path keeps this much. */
const MIN_PATH = 24;

/**
 * Column widths for a table `width` wide. With `withReason` (a terminal of 100 columns or
 * more) a REASON column shows the short code of a refusal (X-Sandbox-Reason's
 * first word); then the request id (from 105 columns) and the key prefix follow, each only
 * while the path keeps MIN_PATH columns (both are in the details). Without it:
 * the key always, the request id from 105 columns.
 */
export function requestColumns(width: number, withReason = width >= 100) {
  const roomy = width >= 100;
  // below 100 columns the reason takes 8 of the path's columns and 2 of the workspace's (a name is cut there anyway)
  const workspace = width >= 120 || (roomy && !withReason) ? 14 : roomy ? 12 : withReason ? 8 : 10;
  const fixed = { time: 8, method: 6, status: 3, latency: 7, workspace };
  let used = Object.values(fixed).reduce((sum, w) => sum + w + 1, 0); // each column and its gap
  const fits = (w: number) => width - used - (w + 1) >= MIN_PATH;
  const take = (w: number, always: boolean) => {
    if (!always && !fits(w)) return 0;
    used += w + 1;
    return w;
  };
  // RATE_LIMIT_MINUTE whole below 120 columns; only RATE_LIMIT_PER_SECOND (organization keys) is cut there
  const reason = withReason ? take(width >= 120 ? REASON_WIDTH : 17, true) : 0;
  const keyWidth = roomy ? 16 : 12;
  const key = withReason ? 0 : take(keyWidth, true);
  const id = width >= 105 ? take(width >= 140 ? 36 : 24, !withReason) : 0;
  const lateKey = withReason ? take(width >= 120 ? keyWidth : 12, false) : key;
  return { ...fixed, key: lateKey, reason, id, path: Math.max(8, width - used) };
}

/** KEY_REVOKED from "KEY_REVOKED key tcs_... was revoked at ..."; "-" for a request served. */
export const reasonCode = (reason: string | null | undefined): string => reason?.split(' ', 1)[0] || '-';

/** The live request table: newest first, the selected row highlighted, scrolled to keep it in view. */
export function RequestsTable({ empty, rows, selected, focused, width, height, workspaceNames, withReason }: RequestsTableProps) {
  const tone = useTone();
  const c = requestColumns(width, withReason);
  const body = Math.max(0, height - 1);
  const start = windowStart(selected, rows.length, body);
  const header = [
    cell('TIME', c.time),
    cell('METHOD', c.method),
    cell('PATH', c.path),
    cell('ST', c.status),
    cell('LATENCY', c.latency, 'right'),
    cell('WORKSPACE', c.workspace),
    ...(c.key ? [cell('KEY', c.key)] : []),
    ...(c.reason ? [cell('REASON', c.reason)] : []),
    ...(c.id ? [cell('REQUEST ID', c.id)] : []),
  ].join(' ');
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
