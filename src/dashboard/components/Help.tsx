import { Box, Text } from 'ink';

export const KEY_HELP: [string, string][] = [
  ['Tab / Shift+Tab', 'move between panels'],
  ['↑ ↓  j k', 'move the selection (PgUp/PgDn: 10 rows)'],
  ['Enter', 'open or close the details of the selected row'],
  ['/', 'filter by path or status (404, 4xx, 5); Enter applies, empty Enter clears, Esc cancels'],
  ['p', 'pause or resume the feed (counts keep moving)'],
  ['r', 'replay the selected webhook delivery'],
  ['c', 'clear the view (the sandbox keeps its logs)'],
  ['K', "show or hide the workspaces' API keys"],
  ['?', 'show or hide this help'],
  ['Esc', 'close details or help'],
  ['q', 'quit (with start --dashboard: stop the sandbox)'],
];

export function Help({ width, height }: { width: number; height: number }) {
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text bold>Keys</Text>
      {KEY_HELP.map(([key, what]) => (
        <Text key={key} wrap="truncate">
          {`  ${key.padEnd(18)} ${what}`}
        </Text>
      ))}
    </Box>
  );
}
