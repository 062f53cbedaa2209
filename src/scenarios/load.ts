import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { FILE_LIMITS, FileRefusedError, readRegularTextFile } from '../storage/regular-file.ts';
import type { Scenario } from './schema.ts';
import { formatProblem, validateScenarioText, type ScenarioProblem, type ValidateOptions } from './validate.ts';

/** Reads and validates scenario files; errors name the file and the JSON path, in one line. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

/** The first mistake of a file, as a ScenarioError; `scenario validate` shows them all (validateScenarioFile). */
export async function loadScenarioFile(file: string, options: ValidateOptions = {}): Promise<Scenario> {
  const { scenario, problems } = await validateScenarioFile(file, options);
  if (!scenario) throw new ScenarioError(formatProblem(problems[0]!));
  return scenario;
}

/** Every mistake of a file (src/scenarios/validate.ts); one that cannot be read is one mistake. */
export async function validateScenarioFile(file: string, options: ValidateOptions = {}): Promise<{ scenario: Scenario | null; problems: ScenarioProblem[] }> {
  let text: string;
  try {
    // a regular file only: `scenario list` waited forever on a FIFO in the directory (issue 29)
    text = await readRegularTextFile(file, { maxBytes: FILE_LIMITS.source });
  } catch (err) {
    const why = err instanceof FileRefusedError ? err.message : ((err as NodeJS.ErrnoException).code ?? (err as Error).message);
    throw new ScenarioError(`${file}: cannot read it (${why})`);
  }
  return validateScenarioText(file, text, options);
}

export async function listScenarioFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  return names.map((n) => join(dir, n));
}

/** A scenario file by name (file name without .json, or its `name`) from a directory, or a path to a file. */
export async function findScenarioFile(dir: string, nameOrFile: string): Promise<string> {
  if (nameOrFile.endsWith('.json')) return nameOrFile;
  const files = await listScenarioFiles(dir);
  const byFileName = files.find((file) => basename(file, '.json') === nameOrFile);
  if (byFileName) return byFileName;
  for (const file of files) {
    // another file's mistake is no reason to miss this one: `scenario validate` names it
    const scenario = await loadScenarioFile(file).catch(() => null);
    if (scenario?.name === nameOrFile) return file;
  }
  throw new ScenarioError(`no scenario "${nameOrFile}" in ${dir}; run \`sandbox scenario list\``);
}
