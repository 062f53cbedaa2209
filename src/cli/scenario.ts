import { basename, join } from 'node:path';
import { DEFAULT_FIXTURES_DIR, DEFAULT_SCENARIOS_DIR } from '../config.ts';
import { loadFixtureWorkspaces } from '../fixtures/fixture-workspaces.ts';
import { createSandbox, type Sandbox } from '../sandbox.ts';
import { findScenarioFile, isScenarioPath, listScenarioFiles, loadScenarioFile, shownPath, validateScenarioFile } from '../scenarios/load.ts';
import { countSteps, runScenario, type StepResult } from '../scenarios/runner.ts';
import { formatProblem, type KnownWorkspace, type ScenarioProblem } from '../scenarios/validate.ts';
import type { Scenario } from '../scenarios/schema.ts';
import { plural } from './format.ts';
import { dim, green, printJson, yellow } from './output.ts';
import { controlClient, controlToken, requireRunning } from './control.ts';

export interface ScenarioFlags {
  dir?: string;
  url?: string;
  token?: string;
  json?: boolean;
}

export interface ScenarioValidateFlags {
  fixtures?: string;
  dir?: string;
}

/**
 * `sandbox scenario validate <name|file...>`: every check `run` makes first, without
 * running anything; workspace and key ids are checked against the fixtures. A file is
 * taken as given, a name from --dir (default: the shipped scenarios, which a project
 * has inside node_modules). Stops at the first file with mistakes, printing each on
 * its own line (stderr).
 */
export async function runScenarioValidate(args: string[], flags: ScenarioValidateFlags): Promise<void> {
  const workspaces = await loadFixtureWorkspaces(flags.fixtures ?? DEFAULT_FIXTURES_DIR);
  const dir = flags.dir ?? DEFAULT_SCENARIOS_DIR;
  for (const arg of args) {
    const file = (await isScenarioPath(arg)) ? arg : await findScenarioFile(dir, arg);
    const { scenario, problems } = await validateScenarioFile(file, { workspaces });
    if (!scenario) return refuse(problems);
    process.stdout.write(`${green('ok')}  ${shownPath(file)}  ${dim(`${scenario.name}, ${plural(countSteps(scenario.steps), 'step')}`)}\n`);
  }
}

/** Each mistake on its own line, as every CLI failure is (`sandbox: <reason>`), and exit 1: nothing runs from a file with one. */
function refuse(problems: readonly ScenarioProblem[]): void {
  for (const problem of problems) process.stderr.write(`sandbox: ${formatProblem(problem)}\n`);
  process.exitCode = 1;
}

/** `sandbox scenario list`: every scenario file with its description, and where the files are from the working directory. */
export async function runScenarioList(flags: ScenarioFlags): Promise<void> {
  const dir = flags.dir ?? DEFAULT_SCENARIOS_DIR;
  const rows = [];
  for (const file of await listScenarioFiles(dir)) {
    const scenario = await loadScenarioFile(file);
    rows.push({ name: basename(file, '.json'), description: scenario.description, steps: countSteps(scenario.steps), file });
  }
  if (flags.json) return printJson(rows);
  const width = Math.max(...rows.map((r) => r.name.length), 4);
  for (const row of rows) process.stdout.write(`${row.name.padEnd(width)}  ${dim(plural(row.steps, 'step'))}  ${row.description}\n`);
  // where the files are, from here: in a project the shipped ones are inside node_modules
  process.stdout.write(`${dim(`files: ${join(shownPath(dir), '<name>.json')}; by name: sandbox scenario validate <name>, sandbox scenario run <name>`)}\n`);
}

/**
 * `sandbox scenario run <name|file>`: against --url, or a fresh in-memory
 * sandbox started for the run. Prints every step as it happens, and what
 * differed when one fails; exits 1 on failure.
 */
export async function runScenarioRun(nameOrFile: string, flags: ScenarioFlags): Promise<void> {
  const file = await findScenarioFile(flags.dir ?? DEFAULT_SCENARIOS_DIR, nameOrFile);
  const token = controlToken(flags);
  let workspaces: readonly KnownWorkspace[];
  if (flags.url) {
    const client = await controlClient({ url: flags.url, token });
    // the standard "no sandbox is running" line, rather than the first step failing with "fetch failed"
    await requireRunning(client);
    workspaces = await client.workspaces();
  } else workspaces = await loadFixtureWorkspaces(DEFAULT_FIXTURES_DIR); // what the fresh sandbox will hold
  // the checks of `scenario validate` first: a mistake is found before any step runs
  const { scenario, problems } = await validateScenarioFile(file, { workspaces });
  if (!scenario) return refuse(problems);
  await runChecked(scenario, flags, token);
}

async function runChecked(scenario: Scenario, flags: ScenarioFlags, token: string | undefined): Promise<void> {
  let own: Sandbox | undefined;
  const url =
    flags.url ??
    (own = await createSandbox({ port: 0, storage: 'memory', clock: scenario.sandbox.clock, enforceRateLimits: scenario.sandbox.enforceRateLimits })).url;
  const print = (step: StepResult) => {
    if (flags.json) return;
    process.stdout.write(step.passed ? `  ${green('✓')} ${step.name}\n` : `  ${yellow('✗')} ${step.name}\n      ${step.message}\n`);
  };
  if (!flags.json) process.stdout.write(`scenario ${scenario.name}${own ? dim(' (fresh in-memory sandbox)') : dim(` (${url})`)}\n`);
  try {
    const result = await runScenario(scenario, { url, token }, print);
    if (flags.json) printJson(result);
    else
      process.stdout.write(
        `${result.passed ? green('passed') : yellow('failed')}: ${result.steps.filter((s) => s.passed).length} of ${plural(result.total, 'step')} passed${result.notReached ? `, ${result.notReached} not reached` : ''}\n`,
      );
    process.exitCode = result.passed ? 0 : 1;
  } finally {
    await own?.stop();
  }
}
