import { Box } from 'ink';
import type { Layout } from '../layout.ts';
import type { Listed, Panel as PanelName, VisibleRows } from '../ui.ts';
import { DeliveriesTable } from './DeliveriesTable.tsx';
import { EventsList } from './EventsList.tsx';
import { Panel } from './Panel.tsx';
import { RateLimits } from './RateLimits.tsx';
import { RequestsTable } from './RequestsTable.tsx';

export interface PanelsProps {
  layout: Layout;
  rows: VisibleRows;
  selected: Record<PanelName, number>;
  /** the focused panel, or null while details or help cover them */
  focused: PanelName | null;
  workspaceNames: Record<string, string>;
  /** what each list says when it shows no row (ui.ts, emptyNote) */
  empty: Record<Listed, string>;
}

/** The four panels, stacked below 140 columns, requests in a tall left column above. */
export function Panels({ layout, rows, selected, focused, workspaceNames: names, empty }: PanelsProps) {
  const requests = (
    <Panel title="Requests" note={`${rows.requests.length} shown`} focused={focused === 'requests'} {...layout.requests}>
      <RequestsTable
        rows={rows.requests}
        selected={selected.requests}
        focused={focused === 'requests'}
        width={layout.requests.width}
        height={layout.requests.height - 1}
        workspaceNames={names}
        empty={empty.requests}
        withReason={layout.columns >= 100}
      />
    </Panel>
  );
  const deliveries = (
    <Panel
      title="Webhooks"
      note={`${rows.deliveries.length} ${rows.deliveries.length === 1 ? 'delivery' : 'deliveries'}`}
      focused={focused === 'deliveries'}
      {...layout.deliveries}
    >
      <DeliveriesTable
        rows={rows.deliveries}
        selected={selected.deliveries}
        focused={focused === 'deliveries'}
        width={layout.deliveries.width}
        height={layout.deliveries.height - 1}
        empty={empty.deliveries}
      />
    </Panel>
  );
  const rate = (
    <Panel title="Rate limits" focused={focused === 'rateLimits'} {...layout.rateLimits}>
      <RateLimits
        buckets={rows.rateLimits}
        selected={selected.rateLimits}
        focused={focused === 'rateLimits'}
        width={layout.rateLimits.width}
        height={layout.rateLimits.height - 1}
        workspaceNames={names}
      />
    </Panel>
  );
  const events = (
    <Panel title="Events" focused={focused === 'events'} {...layout.events}>
      <EventsList
        events={rows.events}
        selected={selected.events}
        focused={focused === 'events'}
        width={layout.events.width}
        height={layout.events.height - 1}
        workspaceNames={names}
        empty={empty.events}
      />
    </Panel>
  );
  if (layout.wide) {
    return (
      <Box>
        {requests}
        <Box width={1} />
        <Box flexDirection="column">
          {deliveries}
          {rate}
          {events}
        </Box>
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      {requests}
      {deliveries}
      <Box>
        {rate}
        <Box width={1} />
        {events}
      </Box>
    </Box>
  );
}
