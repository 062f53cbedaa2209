import type { Command } from 'commander';
import { collect, onUnknownOption, parseInteger } from './options.ts';
import { withServeOptions } from './start.ts';
import { withEnvOptions } from '../env-options.ts';

/** `sandbox exec -- <command>`: a sandbox for the length of one command. */
export function execCommand(program: Command): void {
  // `sandbox exec ls -la`: -la is the command's, which commander cannot know without `--`
  const exec = onUnknownOption(
    program.command('exec'),
    (_flag, line) => `${line}; the command to run goes after --, so its options stay its own: sandbox exec [options] -- <command...>`,
  );
  withServeOptions(exec.description('start a sandbox (in memory, on a free port), run a command against it, stop it, exit with its code'), { port: 0 })
    .argument('<command...>', 'the command to run, after --')
    .option('--key <which>', "which fixture key SANDBOX_API_KEY holds: sandbox or live (default: the default workspace's, see --default-workspace)")
    .option(
      '--workers <n>',
      'also create n workspaces and export their keys as SANDBOX_API_KEY_1..n (with --no-rate-limits they are created with rateLimits: report)',
      parseInteger('--workers', 1, 256),
    )
    .option('--report <file>', 'also write the run report to <file> (the summary always goes to stderr)')
    .option('--report-format <format>', 'json, or junit (one test case per /v1 operation, failed where a warning fired)', 'json')
    .option('--fail-on-warning', 'exit 1 when any request was accepted only by guessing (X-Sandbox-Warning); a failing command keeps its own code')
    .option(
      '--allow-warning <code>',
      'a warning code you accept (repeatable, or comma-separated): --fail-on-warning ignores it and the JUnit report does not fail on it',
      collect,
    )
    .option('--bundle <file>', 'also write the failure bundle of the run to <file> (state, requests, deliveries, clocks; `sandbox open <file>` serves it)')
    .option('--bundle-on-failure <file>', 'write the failure bundle only when exec exits non-zero (the command failed, or a --fail-on-warning gate did)')
    .option(
      '--allow-empty',
      'let a run that sent no request to /v1 pass: without it, --report and --fail-on-warning exit 1 on one (its tests never reached this sandbox)',
    )
    .addHelpText(
      'after',
      '\nThe command gets SANDBOX_URL, SANDBOX_API_KEY (and its id, SANDBOX_API_KEY_ID), SANDBOX_CONTROL_URL and SANDBOX_WORKSPACE_ID (with --workers n, also SANDBOX_API_KEY_1..n, SANDBOX_API_KEY_ID_1..n and SANDBOX_WORKSPACE_ID_1..n).\n\nAt the end, a summary of what the command asked of /v1 goes to stderr (docs/cli.md, "The run report").\n\nExamples:\n  $ npx sandbox exec -- npm test\n  $ npx sandbox exec --report sandbox-report.xml --report-format junit --fail-on-warning --allow-warning UNDOCUMENTED_ENDPOINT -- npm test\n  $ npx sandbox exec --bundle-on-failure sandbox-bundle.json.gz -- npm test\n  $ npx sandbox exec --no-rate-limits -- node -e "fetch(process.env.SANDBOX_URL + \'/__sandbox/health\')"',
    )
    .action(async (command: string[], opts) => {
      const { runExec } = await import('../exec.ts');
      await runExec(command, opts);
    });
  withEnvOptions(exec); // SANDBOX_<OPTION> for every option above (docs/configuration.md)
}
