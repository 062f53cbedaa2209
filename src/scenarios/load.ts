import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { depthProblem, MAX_JSON_DEPTH } from '../core/json-depth.ts';
import { FILE_LIMITS, FileRefusedError, readRegularTextFile } from '../storage/regular-file.ts';
import { suggest } from '../core/suggest.ts';
import { ScenarioSchema, type Scenario } from './schema.ts';

/** Reads and validates scenario files; errors name the file and the JSON path, in one line. */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
}

export async function loadScenarioFile(file: string): Promise<Scenario> {
  let text: string;
  try {
    // a regular file only: `scenario list` waited forever on a FIFO in the directory (issue 29)
    text = await readRegularTextFile(file, { maxBytes: FILE_LIMITS.source });
  } catch (err) {
    const why = err instanceof FileRefusedError ? err.message : ((err as NodeJS.ErrnoException).code ?? (err as Error).message);
    throw new ScenarioError(`${file}: cannot read it (${why})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ScenarioError(`${file}: malformed JSON: ${(err as Error).message}`);
  }
  const tooDeep = depthProblem(json, MAX_JSON_DEPTH, '');
  if (tooDeep) throw new ScenarioError(`${file}: ${tooDeep}`);
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

/** The keys that start a step, one per kind of step (src/scenarios/schema.ts, StepSchema). */
const STEP_KINDS = ['request', 'control', 'receiver', 'waitForDelivery', 'repeat'];

/** A misspelt key is named, with the key it was probably meant to be. */
function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => `unknown key "${key}"${suggest(key, scenarioKeys())}`).join('; ');
  }
  if (issue.code === 'invalid_union') {
    // a misspelt step kind ("reqest") fits no kind of step: name the key no kind knows
    const unknown = unknownToEveryOption(issue.errors);
    if (unknown.length > 0) {
      return `${unknown.map((key) => `unknown key "${key}"${suggest(key, STEP_KINDS)}`).join('; ')}; a step has one of: ${STEP_KINDS.join(', ')}`;
    }
  }
  return issue.message;
}

function unknownToEveryOption(options: readonly (readonly z.core.$ZodIssue[])[]): string[] {
  const perOption = options.map((issues) => new Set(issues.flatMap((i) => (i.code === 'unrecognized_keys' && i.path.length === 0 ? i.keys : []))));
  if (perOption.length === 0) return [];
  return [...perOption[0]!].filter((key) => perOption.every((keys) => keys.has(key)));
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
