import { compareHeaders } from './compare-headers.ts';
import { enumPathOf } from './enums.ts';
import { parentOf, shapeOf, typeName, type FieldShape, type Shape } from './shape.ts';
import type { Answer, DifferenceKind } from './types.ts';

/**
 * One exchange compared (docs/parity.md, "Reading the report"): by shape and by rule, never by values that
 * legitimately differ. Values are compared only where they come from a rule: the status, the
 * error body's `error`/`code`, a field with a small documented set of values (`enum`), and the
 * documented headers' forms. A value against null is not a difference here: it is a null
 * observation, which the report turns into a nullability difference only when, over every
 * exchange, one side was never null (./report.ts).
 */
export interface Finding {
  kind: DifferenceKind;
  field: string;
  target: unknown;
  sandbox: unknown;
}

export interface NullObservation {
  field: string;
  targetNull: boolean;
  sandboxNull: boolean;
  /** the non-null JSON types each side had there */
  targetTypes: string[];
  sandboxTypes: string[];
}

export interface Comparison {
  findings: Finding[];
  nulls: NullObservation[];
}

/** What the comparison knows of the operation: the documented values of its enum fields, by status. */
export type EnumsOf = (status: number) => ReadonlyMap<string, ReadonlySet<string>>;

/** what a side without the field shows in the report */
export const ABSENT = 'absent';
/** the error body's fields compared by the `error` kind, not by shape */
const ERROR_FIELDS = ['error', 'code'] as const;

const isObjectHere = (field: FieldShape | undefined): boolean => field?.types.has('object') === true;
const types = (field: FieldShape): string => [...field.types].sort().join('|');

export function compareAnswers(target: Answer, sandbox: Answer, enumsOf: EnumsOf): Comparison {
  const findings: Finding[] = compareHeaders(target, sandbox).map((h) => ({ kind: 'header', field: h.name, target: h.target, sandbox: h.sandbox }));
  const nulls: NullObservation[] = [];
  if (target.status !== sandbox.status) {
    // another status is another answer: its body says nothing about this one's shape
    findings.push({ kind: 'status', field: '', target: target.status, sandbox: sandbox.status });
    return { findings, nulls };
  }
  const error = target.status >= 400;
  if (error) findings.push(...compareErrors(target.body, sandbox.body));
  if ((target.body === undefined) !== (sandbox.body === undefined)) {
    findings.push({
      kind: 'type',
      field: '',
      target: target.body === undefined ? 'empty' : typeName(target.body),
      sandbox: sandbox.body === undefined ? 'empty' : typeName(sandbox.body),
    });
    return { findings, nulls };
  }
  const skip = error ? ERROR_FIELDS : [];
  compareShapes(shapeOf(target.body, skip), shapeOf(sandbox.body, skip), enumsOf(target.status), findings, nulls);
  return { findings, nulls };
}

function compareShapes(t: Shape, s: Shape, enums: ReadonlyMap<string, ReadonlySet<string>>, findings: Finding[], nulls: NullObservation[]): void {
  for (const [path, tf] of t) {
    const sf = s.get(path);
    if (!sf) {
      // reported where it hangs from an object both sides have: a missing object is one line, not one per field inside
      const up = parentOf(path);
      if (up?.byKey && isObjectHere(t.get(up.parent)) && isObjectHere(s.get(up.parent)))
        findings.push({ kind: 'missing-field', field: path, target: tf.types.size ? types(tf) : 'null', sandbox: ABSENT });
      continue;
    }
    const overlap = [...tf.types].some((type) => sf.types.has(type));
    if (tf.types.size > 0 && sf.types.size > 0 && !overlap) findings.push({ kind: 'type', field: path, target: types(tf), sandbox: types(sf) });
    if (tf.nulls || sf.nulls) nulls.push({ field: path, targetNull: tf.nulls, sandboxNull: sf.nulls, targetTypes: [...tf.types], sandboxTypes: [...sf.types] });
    const documented = enums.get(enumPathOf(path));
    if (documented) findings.push(...compareEnum(path, tf, sf, documented));
  }
  for (const [path, sf] of s) {
    if (t.has(path)) continue;
    const up = parentOf(path);
    if (up?.byKey && isObjectHere(t.get(up.parent)) && isObjectHere(s.get(up.parent)))
      findings.push({ kind: 'extra-field', field: path, target: ABSENT, sandbox: sf.types.size ? types(sf) : 'null' });
  }
}

/**
 * A field of one record (no `[]` in its path) compares its value: after the same calls, both sides
 * hold the same state. A field of a list page's items holds other records' values: only a value
 * outside the documented set differs.
 */
function compareEnum(path: string, tf: FieldShape, sf: FieldShape, documented: ReadonlySet<string>): Finding[] {
  if (!path.includes('[]')) {
    const [tv, sv] = [tf.values[0], sf.values[0]];
    return tv !== undefined && sv !== undefined && tv !== sv ? [{ kind: 'enum', field: path, target: tv, sandbox: sv }] : [];
  }
  const outside = tf.values.find((value) => !documented.has(value)) ?? sf.values.find((value) => !documented.has(value));
  if (outside === undefined) return [];
  const inTarget = tf.values.includes(outside);
  const known = `one of ${[...documented].join(', ')}`;
  return [{ kind: 'enum', field: path, target: inTarget ? outside : known, sandbox: inTarget ? known : outside }];
}

/** The error body's `error` and `code`. A message's ids and numbers are its values, not its form. */
function compareErrors(targetBody: unknown, sandboxBody: unknown): Finding[] {
  const field = (body: unknown, name: string): unknown =>
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
  const out: Finding[] = [];
  for (const name of ERROR_FIELDS) {
    const [t, s] = [field(targetBody, name), field(sandboxBody, name)];
    const same = name === 'error' ? messageForm(t) === messageForm(s) : t === s;
    if (!same) out.push({ kind: 'error', field: name, target: t ?? ABSENT, sandbox: s ?? ABSENT });
  }
  return out;
}

/** `Booking book_1f3c not found` and `Booking book_9a0e not found` are the same message. */
const messageForm = (value: unknown): unknown =>
  typeof value === 'string'
    ? value
        .replace(/"[^"]*"|'[^']*'/g, '"…"')
        .replace(/[\w-]*\d[\w-]*/g, '#')
        .trim()
        .toLowerCase()
    : value;
