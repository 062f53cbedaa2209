import type { Command } from 'commander';
import { group } from './options.ts';

/** `sandbox scenario list|run|validate`: scripted scenarios (JSON files; the shipped ones by name, docs/scenarios.md). */
export function scenarioCommand(program: Command): void {
  const scenario = group(
    program,
    'scenario',
    'list, check and run scripted scenarios (JSON files; the shipped ones by name)',
    'scenario run sandbox-rate-limit',
  );
  scenario
    .command('list')
    .description('list the scenarios')
    .option('--dir <dir>', 'scenarios directory')
    .option('--json', 'machine output')
    .addHelpText('after', '\nExamples:\n  $ npx sandbox scenario list\n  $ npx sandbox scenario list --dir ./my-scenarios --json')
    .action(async (opts) => (await import('../scenario.ts')).runScenarioList(opts));
  scenario
    .command('run')
    .description('run one scenario; exits 1 when a step fails')
    .argument('<name|file>', 'a scenario name from the directory, or a path to a .json file')
    .option('--url <url>', 'a running sandbox (default: a fresh in-memory one for the run, with the clock the scenario asks for; $SANDBOX_URL is not read)')
    .option('--token <token>', 'control token (default: $SANDBOX_CONTROL_TOKEN)')
    .option('--dir <dir>', 'scenarios directory')
    .option('--json', 'print the result as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ npx sandbox scenario run sandbox-rate-limit\n  $ npx sandbox scenario run ./my-case.json --url http://127.0.0.1:4010',
    )
    .action(async (name: string, opts) => (await import('../scenario.ts')).runScenarioRun(name, opts));
  scenario
    .command('validate')
    .description('check scenarios without running them; exits 1 at the first file with a mistake, each mistake on one line')
    .argument('<name|file...>', 'scenario names from the directory, or paths to .json files')
    .option('--dir <dir>', 'scenarios directory the names are looked up in (default: the bundled scenarios)')
    .option('--fixtures <dir>', 'check workspace and key ids against these fixtures (default: the bundled ones)')
    .addHelpText('after', '\nExamples:\n  $ npx sandbox scenario validate ./my-case.json\n  $ npx sandbox scenario validate key-revocation sandbox-rate-limit')
    .action(async (files: string[], opts) => (await import('../scenario.ts')).runScenarioValidate(files, opts));
}
