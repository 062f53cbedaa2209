import type { Command } from 'commander';
import { controlCommand } from '../control.ts';

/** `sandbox inspect`: the browser inspector of a running sandbox (docs/inspector.md). */
export function inspectCommand(program: Command): void {
  controlCommand(program, 'inspect', 'print (or --open) the URL of the browser inspector of a running sandbox', [
    'inspect',
    'inspect --open',
    'inspect --url http://127.0.0.1:4011 --json',
  ])
    .option('--open', 'open it in a browser ($SANDBOX_BROWSER, else xdg-open / open / start)')
    .action(async (opts) => (await import('../inspect.ts')).runInspect(opts));
}
