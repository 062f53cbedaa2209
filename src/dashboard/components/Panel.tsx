import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { cell } from '../format.ts';

export interface PanelProps {
  title: string;
  /** shown after the title, dimmed (counts, hints) */
  note?: string;
  focused: boolean;
  width: number;
  height: number;
  children: ReactNode;
}

/** A titled region of fixed size: a title line, then its content clipped to the rest. */
export function Panel({ title, note, focused, width, height, children }: PanelProps) {
  const label = ` ${title} `;
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      <Text wrap="truncate" bold inverse={focused}>
        {label}
        <Text dimColor={!focused}>{cell(note ? ` ${note}` : '', Math.max(0, width - label.length))}</Text>
      </Text>
      <Box flexDirection="column" height={Math.max(0, height - 1)} overflow="hidden">
        {children}
      </Box>
    </Box>
  );
}

/** A single table line that never wraps. */
export function Line({ children, inverse, dim }: { children: ReactNode; inverse?: boolean; dim?: boolean }) {
  return (
    <Text wrap="truncate" inverse={inverse ?? false} dimColor={dim ?? false}>
      {children}
    </Text>
  );
}
