import { readdir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative } from 'node:path';
import { FILE_LIMITS, FileRefusedError, readRegularTextFile } from '../storage/index.ts';
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
    // a regular file only: a FIFO in the directory would keep `scenario list` waiting forever
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

/**
 * A path as a person can type it from where they stand: relative to the working directory when
 * inside it (`node_modules/travel-commerce-sandbox/scenarios` in a project that installed the
 * package, `scenarios` in its clone), else absolute.
 */
export function shownPath(path: string, cwd = process.cwd()): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

/** A path (a `.json` file, a slash, a shell pattern), not a scenario's name. */
const looksLikePath = (arg: string): boolean => arg.endsWith('.json') || /[/\\*?]/.test(arg);

/**
 * A scenario file by name (file name without .json, or its `name`) from a directory, or a path to
 * a file. A path that is not there is one line that says where the directory's scenarios are and
 * names one by name: in a project, the shipped scenarios live in node_modules, so
 * `scenarios/x.json` (or a pattern the shell matched to nothing) is not there.
 */
export async function findScenarioFile(dir: string, nameOrFile: string): Promise<string> {
  if (looksLikePath(nameOrFile)) {
    if (await isScenarioPath(nameOrFile)) return nameOrFile;
    throw new ScenarioError(await missingFile(dir, nameOrFile));
  }
  const files = await listScenarioFiles(dir);
  const byFileName = files.find((file) => basename(file, '.json') === nameOrFile);
  if (byFileName) return byFileName;
  for (const file of files) {
    // another file's mistake is no reason to miss this one: `scenario validate` names it
    const scenario = await loadScenarioFile(file).catch(() => null);
    if (scenario?.name === nameOrFile) return file;
  }
  throw new ScenarioError(`no scenario "${nameOrFile}" in ${shownPath(dir)}; run \`sandbox scenario list\``);
}

/** Whether `path` is a file (`scenario validate` takes a file of any name before a scenario's name). */
export async function isScenarioPath(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

async function missingFile(dir: string, path: string): Promise<string> {
  const names = await listScenarioFiles(dir).then(
    (files) => files.map((file) => basename(file, '.json')),
    () => [] as string[],
  );
  const asked = basename(path, '.json');
  const example = names.includes(asked) ? asked : (names[0] ?? '<name>');
  const what = /[*?]/.test(path) ? 'no file matches it (the shell left the pattern as written)' : 'no such file';
  return `${path}: ${what}; the scenarios of ${shownPath(dir)} go by name: give ${example} instead (sandbox scenario list shows them all)`;
}
