import type { Command } from 'commander';
import { withUrlOptions } from '../control.ts';

/** `sandbox dashboard`: the live terminal dashboard of a running sandbox. */
export function dashboardCommand(program: Command): void {
  withUrlOptions(program.command('dashboard').description('a live terminal dashboard of a running sandbox: requests, webhooks, rate limits, events'))
    .addHelpText(
      'after',
      '\nKeys: Tab panels, arrows or j/k move, Enter details, / filter, p pause, r replay, c clear, ? help, q quit.\nWhen stdout is not a terminal it prints one line per request, delivery and event.\n\nExamples:\n  $ npx sandbox dashboard\n  $ npx sandbox dashboard --url http://127.0.0.1:4011\n  $ npx sandbox start --dashboard',
    )
    .action(async (opts) => {
      const { runDashboard } = await import('../dashboard.ts');
      await runDashboard(opts);
    });
}
