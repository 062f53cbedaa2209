import { Box, Text } from 'ink';
import type { WorkspaceSummary } from '../../control/client.ts';

/**
 * The workspaces' API keys (K): what `sandbox start` prints in its banner,
 * which the dashboard replaces. A key created at run time shows only its
 * prefix, since the sandbox keeps hashes (docs/dashboard.md). The sandbox's
 * default workspace (`default: true`, src/core/default-workspace.ts) comes
 * first and says so: its key is the one the README uses.
 */
export function Keys({ workspaces, width, height }: { workspaces: WorkspaceSummary[]; width: number; height: number }) {
  const lines: { text: string; bold?: boolean }[] = [{ text: 'API keys (K closes)', bold: true }];
  if (workspaces.length === 0) lines.push({ text: '  no workspaces loaded yet' });
  const defaultFirst = [...workspaces.filter((w) => w.default), ...workspaces.filter((w) => !w.default)];
  for (const w of defaultFirst) {
    lines.push({ text: `${w.name}  ${w.id}  ${w.mode}${w.default ? '  default workspace' : ''}`, bold: true });
    for (const k of w.keys) {
      const scope = k.scopes === null ? 'full access' : k.scopes.join(' ');
      lines.push({ text: `  ${scope.padEnd(16)} ${k.key ?? `${k.keyPrefix}… (${k.status})`}` });
    }
  }
  return (
    <Box flexDirection="column" width={width} height={height} overflow="hidden">
      {lines.slice(0, Math.max(1, height)).map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines of text with no identity of their own, redrawn whole
        <Text key={i} wrap="truncate" bold={l.bold ?? false}>
          {l.text}
        </Text>
      ))}
    </Box>
  );
}
