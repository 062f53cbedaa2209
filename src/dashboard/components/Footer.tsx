import { Box, Text } from 'ink';
import { cell } from '../format.ts';
import { useTone } from '../hooks/use-tone.ts';
import type { UiState } from '../ui.ts';

const HINTS = 'Tab panel  ↑↓ move  Enter details  / filter  p pause  r replay  c clear  K keys  ? help  q quit';

/** The filter being typed, or the message / active filter and the key hints. */
export function Footer({ ui, width }: { ui: UiState; width: number }) {
  const tone = useTone();
  if (ui.draft !== null) {
    return (
      <Box width={width} height={1}>
        <Text wrap="truncate">
          {cell(`/${ui.draft}█  (path or status; Enter applies, empty clears${ui.filter ? ` "${ui.filter}"` : ''}, Esc cancels)`, width)}
        </Text>
      </Box>
    );
  }
  const prefix = [ui.message, ui.filter ? `filter: ${ui.filter}` : null].filter(Boolean).join('  ');
  return (
    <Box width={width} height={1}>
      <Text wrap="truncate">
        <Text color={tone('cyan')}>{prefix ? `${prefix}  ` : ''}</Text>
        <Text dimColor>{cell(HINTS, Math.max(0, width - (prefix ? prefix.length + 2 : 0)))}</Text>
      </Text>
    </Box>
  );
}
