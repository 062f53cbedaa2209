import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { suggest } from '../core/suggest.ts';
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
    throw new ScenarioError(`${file}: ${path || '(root)'}: ${describeIssue(issue)}`);
  }
  return parsed.data;
}

/** Every key a scenario file may use, at any depth (for "did you mean"). */
let vocabulary: string[] | null = null;
function scenarioKeys(): string[] {
  if (vocabulary) return vocabulary;
  const keys = new Set<string>();
  const walk = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    const properties = (node as { properties?: Record<string, unknown> }).properties;
    if (properties) for (const key of Object.keys(properties)) keys.add(key);
    for (const value of Object.values(node)) walk(value);
  };
  walk(z.toJSONSchema(ScenarioSchema, { io: 'input', unrepresentable: 'any' }));
  return (vocabulary = [...keys]);
}

/** A misspelt key is named, with the key it was probably meant to be. */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `unknown key "${key}"${suggest(key, scenarioKeys())}`).join('; ');
  }
  return issue.message;
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
