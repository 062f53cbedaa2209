import { Box, Text, useApp } from 'ink';
import { useMemo, useRef } from 'react';
import { Details } from './components/Details.tsx';
import { ErrorBoundary } from './components/ErrorBoundary.tsx';
import { Footer } from './components/Footer.tsx';
import { Header } from './components/Header.tsx';
import { Help } from './components/Help.tsx';
import { Keys } from './components/Keys.tsx';
import { Panels } from './components/Panels.tsx';
import { detailsFor } from './details.ts';
import { useActions } from './hooks/use-actions.ts';
import { useDashboard } from './hooks/use-dashboard.ts';
import { useKeys } from './hooks/use-keys.ts';
import { useNow } from './hooks/use-now.ts';
import { useTerminalSize, type TerminalSize } from './hooks/use-terminal-size.ts';
import { ColorContext } from './hooks/use-tone.ts';
import { useUi } from './hooks/use-ui.ts';
import { computeLayout, MIN_SIZE } from './layout.ts';
import type { DashboardSource } from './types.ts';
import { emptyNote, PANELS, rowIds, selectedIndex, visibleRows, type Panel } from './ui.ts';

export interface AppProps {
  source: DashboardSource;
  /** called after q (the caller stops the sandbox when it owns it) */
  onQuit?: () => void;
  /** ms between applied batches of stream items; 0 = at once (tests) */
  batchMs?: number;
  /** how often the header's uptime ticks; 0 = never */
  tickMs?: number;
  /** pins the size (tests); otherwise the terminal's, following resizes */
  size?: TerminalSize;
  color?: boolean;
}

/** Layout only: the data comes from hooks, each region from its component. */
export function App({ source, onQuit, batchMs = 100, tickMs = 1000, size, color = true }: AppProps) {
  const { exit } = useApp();
  const [state, dispatch] = useDashboard(source, batchMs);
  const [ui, dispatchUi, getUi] = useUi();
  const { columns, rows: termRows } = useTerminalSize(size);
  const now = useNow(tickMs);
  const rows = useMemo(() => visibleRows(state, ui.filter), [state, ui.filter]);
  const selected = Object.fromEntries(PANELS.map((p) => [p, selectedIndex(rowIds(rows, p), ui.selected[p])])) as Record<Panel, number>;
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const getRows = () => rowsRef.current;
  useKeys(getUi, dispatchUi, getRows, useActions({ source, dispatch, dispatchUi, getUi, getRows, exit, onQuit }));
  const layout = computeLayout(columns, termRows);
  const { body } = layout;

  // below the minimum the whole screen is the message, wrapped, so it is never cut off itself
  if (layout.tooSmall) {
    return (
      <Box flexDirection="column" width={columns}>
        <Text wrap="wrap">{`Terminal too small (${columns}x${termRows}): the dashboard needs ${MIN_SIZE.columns}x${MIN_SIZE.rows}. q quits.`}</Text>
      </Box>
    );
  }
  let main;
  if (ui.help) main = <Help width={body.width} height={body.height} />;
  else if (ui.keys) main = <Keys workspaces={state.workspaces} width={body.width} height={body.height} />;
  else if (ui.details) main = <Details lines={detailsFor(ui.panel, rows, selected, state.workspaceNames, body)} width={body.width} height={body.height} />;
  else {
    const empty = {
      requests: emptyNote('requests', state, ui.filter),
      deliveries: emptyNote('deliveries', state, ui.filter),
      events: emptyNote('events', state, ui.filter),
    };
    main = <Panels layout={layout} rows={rows} selected={selected} focused={ui.panel} workspaceNames={state.workspaceNames} empty={empty} />;
  }

  return (
    <ColorContext.Provider value={color}>
      <Box flexDirection="column" width={columns} height={Math.max(1, termRows - 1)} overflow="hidden">
        <ErrorBoundary region="header" resetKey={state}>
          <Header url={source.url} state={state} now={now} width={columns} />
        </ErrorBoundary>
        <Box height={body.height} overflow="hidden">
          <ErrorBoundary region="panels" resetKey={[state, ui]}>
            {main}
          </ErrorBoundary>
        </Box>
        <Footer ui={ui} width={columns} />
      </Box>
    </ColorContext.Provider>
  );
}
