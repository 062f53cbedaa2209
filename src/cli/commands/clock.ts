import type { Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { durationOptionHint, group, onUnknownOption } from './options.ts';

/** `sandbox clock [show|advance|set]`: the sandbox clock. */
export function clockCommand(program: Command): void {
  const clock = group(program, 'clock', 'show or move the sandbox clock (due timers run as it moves)', 'clock advance 2h');
  controlCommand(clock, 'show', 'show the sandbox time', ['clock'], { isDefault: true }).action(async (opts) =>
    (await import('../clock.ts')).runClockShow(opts),
  );
  withWorkspace(
    onUnknownOption(
      controlCommand(clock, 'advance', 'move the clock forward', [
        'clock advance 90s',
        'clock advance 1d',
        'clock advance --to-next --workspace "Aurora Tours"',
      ]),
      durationOptionHint,
    ),
    "the sandbox clock, every workspace's",
  )
    .argument('[duration]', '90s, 5m, 2h, 1d, 1500ms or plain ms')
    .option('--to-next', "to the next due timer (a webhook retry, a deletion job) and say what ran; with --workspace, that workspace's clock alone")
    .action(async (duration: string | undefined, opts) => (await import('../clock.ts')).runClockAdvance(duration, opts));
  controlCommand(clock, 'set', 'jump to a time (backwards only on a manual clock)', ['clock set 2026-12-24T09:00:00Z'])
    .argument('<iso>', 'ISO 8601 time with offset')
    .action(async (at: string, opts) => (await import('../clock.ts')).runClockSet(at, opts));
}
