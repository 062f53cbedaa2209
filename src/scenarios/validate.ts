import { z } from 'zod';
import { depthProblem, MAX_JSON_DEPTH } from '../core/json-depth.ts';
import { suggest } from '../core/suggest.ts';
import { JsonSyntaxError, locateJson, type JsonLocator, type JsonPath, type Position } from './json-locate.ts';
import {
  CONTROL_ACTIONS,
  ControlStepSchema,
  ReceiverStepSchema,
  RepeatStepShape,
  RequestStepSchema,
  ScenarioSchema,
  STEP_KINDS,
  WaitStepSchema,
  type Scenario,
  type Step,
} from './schema.ts';
import { BUILTIN_VARIABLES, usedVariables } from './template.ts';

/**
 * `sandbox scenario validate` and the checks `scenario run` makes first
 * (docs/scenarios.md, "Validation"): the schema, step kinds and control actions (with a did-you-mean
 * and the list), durations, variables no earlier step defines, receivers no
 * earlier step starts, and workspace and key ids the fixtures do not have. Each
 * mistake is one line: the file, its line and column, the step and what is wrong.
 */
export interface ScenarioProblem {
  file: string;
  position: Position;
  /** `steps[2] "create a booking"`, or the JSON path of a mistake outside the steps */
  where: string;
  message: string;
}

/** What a scenario's ids are checked against: the fixture workspaces, or a running sandbox's. */
export interface KnownWorkspace {
  id: string;
  name: string;
  keys: readonly { id: string }[];
}

export interface ValidateOptions {
  /** check literal workspace and key ids against these; omitted, ids are not checked */
  workspaces?: readonly KnownWorkspace[];
}

export const formatProblem = (p: ScenarioProblem): string => `${p.file}:${p.position.line}:${p.position.column}: ${p.where ? `${p.where}: ` : ''}${p.message}`;

export const REQUIRED_FIELDS = 'a scenario file needs "name", "description" and "steps" ("sandbox" and "$comment" are optional)';

export function validateScenarioText(file: string, text: string, options: ValidateOptions = {}): { scenario: Scenario | null; problems: ScenarioProblem[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { scenario: null, problems: [malformed(file, text, err as Error)] };
  }
  const tooDeep = depthProblem(json, MAX_JSON_DEPTH, '');
  if (tooDeep) return { scenario: null, problems: [{ file, position: { line: 1, column: 1 }, where: '', message: tooDeep }] };
  // positions are worked out only for a file with a mistake: a good file costs its JSON.parse and the schema
  let locator: JsonLocator | undefined;
  const checker = new Checker(file, () => (locator ??= locateJson(text)));
  checker.structure(json);
  if (checker.problems.length > 0) return { scenario: null, problems: checker.problems };
  const parsed = ScenarioSchema.safeParse(json);
  if (!parsed.success) {
    // the checks above mirror the schema; anything they missed is still reported, at its path
    for (const issue of parsed.error.issues) checker.issue(issue, []);
    return { scenario: null, problems: checker.problems };
  }
  checker.references(parsed.data.steps, json as { steps: unknown[] }, options);
  return { scenario: checker.problems.length === 0 ? parsed.data : null, problems: checker.problems };
}

/** JSON.parse names no position for some mistakes (`{"a": }`): the scanner finds it. */
function malformed(file: string, text: string, err: Error): ScenarioProblem {
  try {
    locateJson(text);
  } catch (found) {
    if (found instanceof JsonSyntaxError) return { file, position: found.position, where: '', message: `malformed JSON: ${found.message}` };
  }
  return { file, position: { line: 1, column: 1 }, where: '', message: `malformed JSON: ${err.message}` };
}

/** The top level with its steps left unchecked: each step is checked by its kind, so a mistake is named inside it. */
const TopLevel = z.strictObject({ ...ScenarioSchema.shape, steps: z.array(z.unknown()).min(1) });

const KIND_SCHEMAS = {
  request: RequestStepSchema,
  control: ControlStepSchema,
  receiver: ReceiverStepSchema,
  waitForDelivery: WaitStepSchema,
  repeat: RepeatStepShape,
} as const;

class Checker {
  readonly problems: ScenarioProblem[] = [];
  /** the step a path lies in, for `steps[2] "name"` */
  private readonly stepNames = new Map<string, string>();

  constructor(
    private readonly file: string,
    private readonly locator: () => JsonLocator,
  ) {}

  private get locate(): JsonLocator {
    return this.locator();
  }

  add(path: JsonPath, message: string, position = this.locate.value(path)): void {
    this.problems.push({ file: this.file, position, where: this.where(path), message });
  }

  structure(json: unknown): void {
    if (!json || typeof json !== 'object' || Array.isArray(json)) return this.add([], `${REQUIRED_FIELDS}; this file is not a JSON object`);
    const top = json as Record<string, unknown>;
    const missing = ['name', 'description', 'steps'].filter((field) => top[field] === undefined);
    if (missing.length > 0) this.add([], `${REQUIRED_FIELDS}; this one has no ${missing.map((f) => `"${f}"`).join(' or ')}`);
    const parsed = TopLevel.safeParse(json);
    if (!parsed.success)
      for (const issue of parsed.error.issues) if (!(issue.path.length === 1 && missing.includes(String(issue.path[0])))) this.issue(issue, []);
    if (Array.isArray(top.steps)) top.steps.forEach((step, i) => this.step(step, ['steps', i]));
  }

  private step(value: unknown, path: (string | number)[]): void {
    this.stepNames.set(JSON.stringify(path), stepLabel(value));
    if (!value || typeof value !== 'object' || Array.isArray(value)) return this.add(path, `a step is an object with one of: ${STEP_KINDS.join(', ')}`);
    const step = value as Record<string, unknown>;
    const kinds = STEP_KINDS.filter((kind) => kind in step);
    if (kinds.length === 0) {
      const unknown = Object.keys(step).filter((key) => key !== 'name');
      const named = unknown.map((key) => `unknown key "${key}"${suggest(key, STEP_KINDS)}`).join('; ');
      return this.add(
        path,
        `${named ? `${named}; ` : ''}a step has one of: ${STEP_KINDS.join(', ')}`,
        unknown[0] ? this.locate.key(path, unknown[0]) : undefined,
      );
    }
    if (kinds.length > 1) return this.add(path, `a step has one kind, and this one has ${kinds.join(' and ')}: split it into ${kinds.length} steps`);
    const kind = kinds[0]!;
    if (kind === 'control' && !this.controlAction(step.control, [...path, 'control'])) return;
    const parsed = KIND_SCHEMAS[kind].safeParse(step);
    if (!parsed.success) for (const issue of parsed.error.issues) this.issue(issue, path);
    if (kind === 'repeat' && Array.isArray(step.steps)) step.steps.forEach((inner, i) => this.step(inner, [...path, 'steps', i]));
  }

  /** false when the action is missing or unknown (reported here, with the list), so its fields are not checked against a guess */
  private controlAction(control: unknown, path: (string | number)[]): boolean {
    if (!control || typeof control !== 'object' || Array.isArray(control)) return true; // the schema says what it should be
    const action = (control as { action?: unknown }).action;
    const list = `actions: ${CONTROL_ACTIONS.join(', ')}`;
    if (action === undefined) {
      this.add(path, `a control step needs an "action"; ${list}`);
      return false;
    }
    if (typeof action === 'string' && CONTROL_ACTIONS.includes(action)) return true;
    this.add(
      [...path, 'action'],
      `unknown control action ${JSON.stringify(action)}${typeof action === 'string' ? suggest(action, CONTROL_ACTIONS) : ''}; ${list}`,
    );
    return false;
  }

  /** One zod issue, at `base` + its path; an unknown key is placed at the key and given a did-you-mean. */
  issue(issue: z.core.$ZodIssue, base: JsonPath): void {
    const path = [...base, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    const field = fieldPath(path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        this.add(path, `${field ? `${field}: ` : ''}unknown key "${key}"${suggest(key, scenarioKeys())}`, this.locate.key(path, key));
      return;
    }
    const message =
      issue.code === 'invalid_type' && issue.input === undefined
        ? `this field is required (${issue.message.replace(/^Invalid input: /, '')})`
        : issue.message.replace(/^Invalid input: /, '');
    // a duration's message names its field already ("ms takes a duration ..."): name it once, in full
    const last = String(path.at(-1));
    this.add(path, field && message.startsWith(`${last} `) ? `${field}${message.slice(last.length)}` : `${field ? `${field}: ` : ''}${message}`);
  }

  /** Variables, receivers and ids, in the order the steps run. */
  references(steps: readonly Step[], raw: { steps: unknown[] }, options: ValidateOptions): void {
    const defined = new Set<string>(BUILTIN_VARIABLES);
    const walk = (list: readonly Step[], rawList: unknown[], path: (string | number)[]) => {
      list.forEach((step, i) => {
        const at = [...path, i];
        const rawStep = rawList[i] as Record<string, unknown>;
        if ('repeat' in step) return walk(step.steps, rawStep.steps as unknown[], [...at, 'steps']);
        for (const use of usedVariables(rawStep)) {
          if (!defined.has(use.name))
            this.add(
              [...at, ...use.path],
              `${fieldPath(use.path)}: no step before this one defines {{${use.name}}}${suggest(use.name, [...defined])}; defined here: ${[...defined].join(', ')}`,
              this.locate.inString([...at, ...use.path], use.index),
            );
        }
        if ('waitForDelivery' in step && !defined.has(`receivers.${step.waitForDelivery.receiver}.url`)) {
          this.add(
            [...at, 'waitForDelivery', 'receiver'],
            `waitForDelivery.receiver: no receiver step before this one starts "${step.waitForDelivery.receiver}"`,
          );
        }
        if (options.workspaces && 'control' in step) this.ids(step.control, at, options.workspaces);
        for (const name of definedBy(step)) defined.add(name);
      });
    };
    walk(steps, raw.steps, ['steps']);
  }

  private ids(action: Extract<Step, { control: unknown }>['control'], at: (string | number)[], workspaces: readonly KnownWorkspace[]): void {
    const literal = (value: unknown): value is string => typeof value === 'string' && !value.includes('{{');
    const check = (value: unknown, path: (string | number)[]) => {
      if (!literal(value) || workspaces.some((w) => w.id === value)) return;
      const named = workspaces.find((w) => w.name.toLowerCase() === value.toLowerCase());
      const known = workspaces.map((w) => `${w.id} (${w.name})`).join(', ');
      this.add(
        [...at, 'control', ...path],
        `${path.join('.')}: ${named ? `"${value}" is the name of workspace ${named.id}: give its id` : `no workspace has the id "${value}"`}; the workspaces: ${known}, or {{workspaces.live}} / {{workspaces.sandbox}}`,
      );
    };
    if ('workspaceId' in action) check(action.workspaceId, ['workspaceId']);
    if (action.action === 'addFault') check(action.fault.workspaceId, ['fault', 'workspaceId']);
    if (action.action === 'revokeKey' && literal(action.keyId) && !workspaces.some((w) => w.keys.some((k) => k.id === action.keyId))) {
      this.add(
        [...at, 'control', 'keyId'],
        `keyId: no key of the workspaces has the id "${action.keyId}"; capture a created key's id (createKey's captureId) and revoke {{thatName}}`,
      );
    }
  }

  private where(path: JsonPath): string {
    // the innermost step the path lies in
    for (let n = path.length; n > 0; n--) {
      const label = this.stepNames.get(JSON.stringify(path.slice(0, n)));
      if (label !== undefined) return `${jsonPath(path.slice(0, n))} ${JSON.stringify(label)}`;
    }
    return '';
  }
}

/** What each kind of step makes known to the steps after it. */
function definedBy(step: Exclude<Step, { repeat: number }>): string[] {
  if ('request' in step) return Object.keys(step.capture ?? {});
  if ('receiver' in step) return [`receivers.${step.receiver.name}.url`];
  if (!('control' in step)) return [];
  const action = step.control;
  switch (action.action) {
    case 'createKey':
      return [action.captureKey, ...(action.captureId ? [action.captureId] : [])];
    case 'readOtp':
    case 'findDeparture':
      return [action.capture];
    case 'get':
      return Object.keys(action.capture);
    default:
      return [];
  }
}

/** A step as `scenario run` prints it when it has no name. */
export function stepLabel(value: unknown): string {
  if (!value || typeof value !== 'object') return 'step';
  const step = value as Record<string, unknown>;
  const inner = (key: string, field: string): string => String((step[key] as Record<string, unknown>)[field]);
  if (typeof step.name === 'string') return step.name;
  if (step.request && typeof step.request === 'object') return `${inner('request', 'method')} ${inner('request', 'path')}`;
  if (step.control && typeof step.control === 'object') return `control: ${inner('control', 'action')}`;
  if (step.receiver && typeof step.receiver === 'object') return `receiver ${inner('receiver', 'name')}`;
  if (step.waitForDelivery && typeof step.waitForDelivery === 'object') return `wait for ${inner('waitForDelivery', 'type')}`;
  if ('repeat' in step) return `repeat ${String(step.repeat)}`;
  return 'step';
}

const jsonPath = (path: JsonPath): string =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');

/** `steps[2].request.path` -> within a step, `request.path`; outside one, the whole path. */
function fieldPath(path: JsonPath): string {
  let last = -1;
  path.forEach((p, i) => {
    if (p === 'steps' && typeof path[i + 1] === 'number') last = i + 2;
  });
  return jsonPath(path.slice(Math.max(last, 0)));
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
