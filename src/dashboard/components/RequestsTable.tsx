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
}

/** Column widths for a table `width` wide: the request id appears only when there is room. */
export function requestColumns(width: number) {
  const showId = width >= 105;
  const fixed = { time: 8, method: 6, status: 3, latency: 7, workspace: width >= 100 ? 14 : 10, key: width >= 100 ? 16 : 12, id: showId ? (width >= 140 ? 36 : 24) : 0 };
  const used = fixed.time + fixed.method + fixed.status + fixed.latency + fixed.workspace + fixed.key + fixed.id + (showId ? 7 : 6);
  return { ...fixed, path: Math.max(8, width - used) };
}

/** The live request table: newest first, the selected row highlighted, scrolled to keep it in view. */
export function RequestsTable({ empty, rows, selected, focused, width, height, workspaceNames }: RequestsTableProps) {
  const tone = useTone();
  const c = requestColumns(width);
  const body = Math.max(0, height - 1);
  const start = windowStart(selected, rows.length, body);
  const header = [cell('TIME', c.time), cell('METHOD', c.method), cell('PATH', c.path), cell('ST', c.status), cell('LATENCY', c.latency, 'right'), cell('WORKSPACE', c.workspace), cell('KEY', c.key), ...(c.id ? [cell('REQUEST ID', c.id)] : [])].join(' ');
  return (
    <>
      <Line dim>{header}</Line>
      {rows.length === 0 ? <Line dim>{cell(empty, width)}</Line> : null}
      {rows.slice(start, start + body).map((r, i) => (
        <Line key={r.requestId + String(start + i)} inverse={focused && start + i === selected}>
          {`${cell(clockTime(r.at), c.time)} ${cell(r.method, c.method)} ${cell(r.path, c.path)} `}
          <Text color={tone(statusTone(r.status))}>{cell(String(r.status), c.status)}</Text>
          {` ${cell(latency(r.latencyMs), c.latency, 'right')} ${cell(r.workspaceId ? (workspaceNames[r.workspaceId] ?? r.workspaceId) : '-', c.workspace)} ${cell(r.keyPrefix ?? '-', c.key)}${c.id ? ` ${cell(r.requestId, c.id)}` : ''}`}
        </Line>
      ))}
    </>
  );
}
