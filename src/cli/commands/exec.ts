import type { Command } from 'commander';
import { parseInteger } from './options.ts';
import { withServeOptions } from './start.ts';

/** `sandbox exec -- <command>`: a sandbox for the length of one command. */
export function execCommand(program: Command): void {
  withServeOptions(program.command('exec').description('start a sandbox (in memory, on a free port), run a command against it, stop it, exit with its code'), { port: 0 })
    .argument('<command...>', 'the command to run, after --')
    .option('--key <which>', 'which fixture key SANDBOX_API_KEY holds: sandbox or live', 'sandbox')
    .option('--workers <n>', 'also create n workspaces and export their keys as SANDBOX_API_KEY_1..n', parseInteger('--workers', 1, 256))
    .addHelpText('after', '\nThe command gets SANDBOX_URL, SANDBOX_API_KEY, SANDBOX_CONTROL_URL and SANDBOX_WORKSPACE_ID (with --workers n, also SANDBOX_API_KEY_1..n and SANDBOX_WORKSPACE_ID_1..n).\n\nExamples:\n  $ npx sandbox exec -- npm test\n  $ npx sandbox exec --no-rate-limits -- node -e "fetch(process.env.SANDBOX_URL + \'/__sandbox/health\')"')
    .action(async (command: string[], opts) => {
      const { runExec } = await import('../exec.ts');
      await runExec(command, opts);
    });
}
