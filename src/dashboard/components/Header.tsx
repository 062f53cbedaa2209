import { Box, Text } from 'ink';
import { cell, clockTime, duration } from '../format.ts';
import { useTone } from '../hooks/use-tone.ts';
import type { DashboardState } from '../state.ts';

export interface HeaderProps {
  url: string;
  state: DashboardState;
  now: number;
  width: number;
}

/** URL, uptime, the sandbox clock and its mode, request and error counts, the connection. */
export function Header({ url, state, now, width }: HeaderProps) {
  const tone = useTone();
  const uptime = state.uptime ? duration(state.uptime.ms + (state.connection === 'live' ? Math.max(0, now - state.uptime.readAt) : 0)) : '–';
  const clock = state.clock ? `${clockTime(state.clock.now)} ${state.clock.mode}` : '–';
  const connection =
    state.connection === 'live'
      ? { text: '● live', tone: 'green' as const }
      : state.connection === 'down'
        ? { text: '○ unreachable, reconnecting…', tone: 'red' as const }
        : { text: '◌ connecting…', tone: 'yellow' as const };
  const left = ` ${url}  up ${uptime}  clock ${clock}  `;
  const counts = `${state.counts.requests} req `;
  const errors = `${state.counts.errors} err  ${state.counts.skipped ? `${state.counts.skipped} skipped  ` : ''}`;
  const paused = state.paused ? 'PAUSED  ' : '';
  const rest = Math.max(0, width - left.length - counts.length - errors.length - paused.length);
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate" bold>
        {left}
        <Text>{counts}</Text>
        <Text color={tone(state.counts.errors > 0 ? 'red' : undefined)}>{errors}</Text>
        <Text color={tone('yellow')} inverse={state.paused}>
          {paused}
        </Text>
        <Text color={tone(connection.tone)}>{cell(connection.text, rest)}</Text>
      </Text>
    </Box>
  );
}
