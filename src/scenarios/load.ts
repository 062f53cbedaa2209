import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { ScenarioSchema, type Scenario } from './schema.ts';

/** Reads and validates scenario files; errors name the file and the JSON path, in one line. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

export async function loadScenarioFile(file: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ScenarioError(`${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(`${file}: malformed JSON: ${(err as Error).message}`);
  }
  const parsed = ScenarioSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
    throw new ScenarioError(`${file}: ${path || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

export async function listScenarioFiles(dir: string): Promise<string[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  return names.map((n) => join(dir, n));
}

/** A scenario by name (file name without .json, or its `name`) from a directory, or a path to a file. */
export async function findScenario(dir: string, nameOrFile: string): Promise<Scenario> {
  if (nameOrFile.endsWith('.json')) return loadScenarioFile(nameOrFile);
  for (const file of await listScenarioFiles(dir)) {
    if (basename(file, '.json') === nameOrFile) return loadScenarioFile(file);
  }
  for (const file of await listScenarioFiles(dir)) {
    const scenario = await loadScenarioFile(file);
    if (scenario.name === nameOrFile) return scenario;
  }
  throw new ScenarioError(`no scenario "${nameOrFile}" in ${dir}; run \`sandbox scenario list\``);
}
