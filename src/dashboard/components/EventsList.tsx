import { cell, clockTime, windowStart } from '../format.ts';
import type { DomainEventRow } from '../types.ts';
import { Line } from './Panel.tsx';

export interface EventsListProps {
  /** the line shown instead of rows when there are none */
  empty: string;
  events: DomainEventRow[];
  selected: number;
  focused: boolean;
  width: number;
  height: number;
  workspaceNames: Record<string, string>;
}

/** Domain events as they are emitted, newest first. */
export function EventsList({ empty, events, selected, focused, width, height, workspaceNames }: EventsListProps) {
  const start = windowStart(selected, events.length, height);
  const type = Math.min(28, Math.max(12, Math.floor(width / 2)));
  if (events.length === 0) return <Line dim>{cell(empty, width)}</Line>;
  return (
    <>
      {events.slice(start, start + height).map((e, i) => (
        <Line key={e.id} inverse={focused && start + i === selected}>
          {`${cell(clockTime(e.createdAt), 8)} ${cell(e.type, type)} ${cell(workspaceNames[e.workspaceId] ?? e.workspaceId, Math.max(0, width - type - 10))}`}
        </Line>
      ))}
    </>
  );
}
