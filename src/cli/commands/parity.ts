import type { Command } from 'commander';
import { controlCommand } from '../control.ts';
import { parseInteger } from './options.ts';

/** `sandbox parity`: the parity report of a running `sandbox proxy` (docs/parity.md, "Reading the report"). */
export function parityCommand(program: Command): void {
  controlCommand(program, 'parity', 'print where a `sandbox proxy` found the sandbox and its target differ; exits 1 when they do', [
    'parity --url http://127.0.0.1:4011',
    'parity --junit parity.xml',
    'parity --markdown >> "$GITHUB_STEP_SUMMARY"',
  ])
    .option('--junit <file>', 'also write JUnit XML: one failing testcase per difference (unknown ids skipped, not failing)')
    .option('--markdown', 'print every difference as a Markdown table')
    .option('--limit <n>', 'rows of the default table (default 20)', parseInteger('--limit', 1, 10_000))
    .action(async (opts) => (await import('../parity.ts')).runParity(opts));
}
