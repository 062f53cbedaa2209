import { Box, Text } from 'ink';
import { cell, gauge, gaugeTone, windowStart } from '../format.ts';
import { useTone } from '../hooks/use-tone.ts';
import type { RateBucket } from '../types.ts';
import { Line } from './Panel.tsx';

export interface RateLimitsProps {
  buckets: RateBucket[];
  selected: number;
  focused: boolean;
  width: number;
  height: number;
  workspaceNames: Record<string, string>;
}

export function bucketLabel(b: RateBucket, names: Record<string, string>): string {
  return b.kind === 'workspace' ? (names[b.id] ?? b.id) : `key ${b.id}`;
}

/**
 * For each workspace and organization key: the minute quota left and the burst
 * bucket, as gauges that turn yellow then red as they drain (API description,
 * "Rate limits"). Two lines per bucket.
 */
export function RateLimits({ buckets, selected, focused, width, height, workspaceNames }: RateLimitsProps) {
  const tone = useTone();
  const perBucket = 2;
  const shown = Math.max(0, Math.floor(height / perBucket));
  const start = windowStart(selected, buckets.length, shown);
  const label = Math.min(20, Math.max(8, Math.floor(width / 3)));
  const numbers = 9;
  // label + " minute " + bar + " " + numbers fills the width exactly
  const bar = Math.max(4, width - label - numbers - 9);
  if (buckets.length === 0) return <Line dim>{cell('  no rate buckets yet', width)}</Line>;
  return (
    <>
      {buckets.slice(start, start + shown).map((b, i) => {
        const minute = b.limit > 0 ? b.remaining / b.limit : 0;
        const burst = b.burst > 0 ? b.burstTokens / b.burst : 0;
        return (
          <Box key={b.bucket} flexDirection="column">
            <Line inverse={focused && start + i === selected}>
              {`${cell(bucketLabel(b, workspaceNames), label)} minute `}
              <Text color={tone(gaugeTone(minute))}>{gauge(minute, bar)}</Text>
              {` ${cell(`${b.remaining}/${b.limit}`, numbers, 'right')}`}
            </Line>
            <Line>
              {`${cell(b.perSecond ? `  ${b.perSecond}/s` : '', label)} burst  `}
              <Text color={tone(b.burst > 0 ? gaugeTone(burst) : 'gray')}>{gauge(burst, bar)}</Text>
              {` ${cell(b.burst > 0 ? `${b.burstTokens}/${b.burst}` : '?', numbers, 'right')}`}
            </Line>
          </Box>
        );
      })}
    </>
  );
}
