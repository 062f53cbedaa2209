import { basename } from 'node:path';
import { DEFAULT_SCENARIOS_DIR } from '../config.ts';
import { createSandbox, type Sandbox } from '../sandbox.ts';
import { findScenario, listScenarioFiles, loadScenarioFile } from '../scenarios/load.ts';
import { countSteps, runScenario, type StepResult } from '../scenarios/runner.ts';
import { plural } from './format.ts';
import { dim, green, printJson, yellow } from './output.ts';
import { controlClient, controlToken, requireRunning } from './control.ts';

export interface ScenarioFlags {
  dir?: string;
  url?: string;
  token?: string;
  json?: boolean;
}

/** `sandbox scenario list`: every scenario file with its description. */
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
}

/**
 * `sandbox scenario run <name|file>`: against --url, or a fresh in-memory
 * sandbox started for the run. Prints every step as it happens, and what
 * differed when one fails; exits 1 on failure.
 */
export async function runScenarioRun(nameOrFile: string, flags: ScenarioFlags): Promise<void> {
  const scenario = await findScenario(flags.dir ?? DEFAULT_SCENARIOS_DIR, nameOrFile);
  const token = controlToken(flags);
  // the standard "no sandbox is running" line, rather than the first step failing with "fetch failed"
  if (flags.url) await requireRunning(await controlClient({ url: flags.url, token }));
  let own: Sandbox | undefined;
  const url = flags.url ?? (own = await createSandbox({ port: 0, storage: 'memory', clock: scenario.sandbox.clock, enforceRateLimits: scenario.sandbox.enforceRateLimits })).url;
  const print = (step: StepResult) => {
    if (flags.json) return;
    process.stdout.write(step.passed ? `  ${green('✓')} ${step.name}\n` : `  ${yellow('✗')} ${step.name}\n      ${step.message}\n`);
  };
  if (!flags.json) process.stdout.write(`scenario ${scenario.name}${own ? dim(' (fresh in-memory sandbox)') : dim(` (${url})`)}\n`);
  try {
    const result = await runScenario(scenario, { url, token }, print);
    if (flags.json) printJson(result);
    else process.stdout.write(`${result.passed ? green('passed') : yellow('failed')}: ${result.steps.filter((s) => s.passed).length} of ${plural(result.total, 'step')} passed${result.notReached ? `, ${result.notReached} not reached` : ''}\n`);
    process.exitCode = result.passed ? 0 : 1;
  } finally {
    await own?.stop();
  }
}
