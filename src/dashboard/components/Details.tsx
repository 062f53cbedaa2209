import { Box, Text } from 'ink';
import type { DetailLine } from '../details.ts';
import { useTone } from '../hooks/use-tone.ts';

/** A details view: pre-computed lines, clipped to the height it is given. */
export function Details({ lines, width, height }: { lines: DetailLine[]; width: number; height: number }) {
  const tone = useTone();
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {lines.slice(0, height).map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of text with no identity of their own, redrawn whole
        <Text key={i} wrap="truncate" bold={line.heading ?? false} color={tone(line.tone)}>
          {line.text || ' '}
        </Text>
      ))}
    </Box>
  );
}
