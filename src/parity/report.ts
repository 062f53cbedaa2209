import type { CatalogRoute } from '../core/route-catalog.ts';
import { ABSENT, compareAnswers, type Finding, type NullObservation } from './compare.ts';
import { EnumIndex } from './enums.ts';
import { ignoreMatcher } from './ignore.ts';
import { NotComparedLines, whyNotCompared } from './not-compared.ts';
import { OperationIndex } from './operation.ts';
import { recordFieldPath, recordIn, typeName } from './shape.ts';
import { redactHeaders, redactJson } from '../core/redact.ts';
import {
  DIFFERENCE_KINDS,
  type Answer,
  type Difference,
  type DifferenceKind,
  type Exchange,
  type IgnoreRule,
  type ParityRecorder,
  type ParityReportBody,
} from './types.ts';

/**
 * The parity report (docs/parity.md, "Reading the report"): every exchange the proxy saw, compared
 * (./compare.ts), its differences aggregated by (kind, method, path template, field) with a
 * count and the request id of the first example, whose two answers are kept for the inspector's
 * side-by-side view. Everything a client can grow is bounded: the differences, the null
 * observations and the examples (docs/parity.md, "Reading the report").
 */
export interface ParityRecorderOptions {
  ignore?: readonly IgnoreRule[];
  /** the sandbox's route catalog (ctx.routes): the path templates, and the OpenAPI document the enums are read from */
  routes: { routes: readonly CatalogRoute[]; document(): string };
}

export const PARITY_LIMITS = {
  /** distinct (kind, method, path, field) lines */
  differences: 2000,
  /** distinct fields where null was seen on one side */
  nullFields: 5000,
  /** exchanges whose two answers are kept */
  examples: 500,
  /** the JSON text of the kept answers, all together */
  exampleBytes: 32 * 1024 * 1024,
} as const;

interface NullStats {
  method: string;
  path: string;
  field: string;
  targetNull: boolean;
  sandboxNull: boolean;
  targetTypes: Set<string>;
  sandboxTypes: Set<string>;
  /** exchanges where one side was null and the other was not */
  mismatches: number;
  requestId: string;
}

interface Example {
  target: Answer;
  sandbox: Answer | null;
}

const KIND_ORDER = new Map<DifferenceKind, number>(DIFFERENCE_KINDS.map((kind, i) => [kind, i]));
/** response headers never kept in an example: what a target may set that is a secret */
const SECRET_HEADERS = new Set(['set-cookie', 'authorization', 'proxy-authorization', 'www-authenticate']);

const keyOf = (kind: string, method: string, path: string, field: string): string => JSON.stringify([kind, method, path, field]);
const typesText = (types: Set<string>, withNull: boolean): string => [...[...types].sort(), ...(withNull ? ['null'] : [])].join('|') || 'null';

export function createParityRecorder(options: ParityRecorderOptions): ParityRecorder {
  const operations = new OperationIndex(() => options.routes.routes);
  const enums = new EnumIndex(() => options.routes.document());
  const ignored = ignoreMatcher(options.ignore ?? []);
  let requests = 0;
  let compared = 0;
  let omitted = 0;
  let exampleBytes = 0;
  const differences = new Map<string, Difference>();
  const nullStats = new Map<string, NullStats>();
  const examples = new Map<string, Example>();
  const notCompared = new NotComparedLines();

  const keepExample = (exchange: Exchange): void => {
    if (examples.has(exchange.requestId) || examples.size >= PARITY_LIMITS.examples) return;
    const target = withoutSecrets(exchange.target);
    const sandbox = exchange.sandbox && withoutSecrets(exchange.sandbox);
    const bytes = (JSON.stringify(target.body)?.length ?? 0) + (JSON.stringify(sandbox?.body)?.length ?? 0);
    if (exampleBytes + bytes > PARITY_LIMITS.exampleBytes) return;
    exampleBytes += bytes;
    examples.set(exchange.requestId, { target, sandbox });
  };

  const add = (exchange: Exchange, path: string, finding: Finding): void => {
    if (ignored(finding.kind, exchange.method, path, finding.field)) return;
    const key = keyOf(finding.kind, exchange.method, path, finding.field);
    const known = differences.get(key);
    if (known) {
      known.count++;
      return;
    }
    if (differences.size >= PARITY_LIMITS.differences) {
      omitted++;
      return;
    }
    // an example value is the target's own: redacted as the examples are (a key in an error message;
    // a header or enum value by its name too; other kinds hold type names, never values)
    const name = finding.kind === 'header' || finding.kind === 'enum' ? lastFieldName(finding.field) : undefined;
    differences.set(key, {
      kind: finding.kind,
      method: exchange.method,
      path,
      field: finding.field,
      target: redactJson(finding.target, name),
      sandbox: redactJson(finding.sandbox, name),
      count: 1,
      requestId: exchange.requestId,
    });
    keepExample(exchange);
  };

  const observeNull = (exchange: Exchange, path: string, seen: NullObservation): void => {
    const key = keyOf('null', exchange.method, path, seen.field);
    let stats = nullStats.get(key);
    if (!stats) {
      if (nullStats.size >= PARITY_LIMITS.nullFields) return;
      stats = {
        method: exchange.method,
        path,
        field: seen.field,
        targetNull: false,
        sandboxNull: false,
        targetTypes: new Set(),
        sandboxTypes: new Set(),
        mismatches: 0,
        requestId: exchange.requestId,
      };
      nullStats.set(key, stats);
    }
    stats.targetNull ||= seen.targetNull;
    stats.sandboxNull ||= seen.sandboxNull;
    for (const type of seen.targetTypes) stats.targetTypes.add(type);
    for (const type of seen.sandboxTypes) stats.sandboxTypes.add(type);
    // a value against null: one side null only, the other with a value
    const mismatch =
      (seen.targetNull && !seen.sandboxNull && seen.sandboxTypes.length > 0) || (seen.sandboxNull && !seen.targetNull && seen.targetTypes.length > 0);
    if (!mismatch) return;
    if (stats.mismatches++ === 0) {
      stats.requestId = exchange.requestId;
      keepExample(exchange);
    }
  };

  return {
    record(exchange) {
      requests++;
      const method = exchange.method.toUpperCase();
      const normalized = method === exchange.method ? exchange : { ...exchange, method };
      const path = operations.templateOf(method, exchange.urlPath.split('?')[0]!);
      // an answer too large to compare, or one the sandbox could not replay: listed with its reason, nothing of it compared nor kept
      if (exchange.notCompared) return notCompared.note(method, path, exchange.requestId, exchange.notCompared);
      // data, not drift: the records the sandbox could not learn, one line per operation
      for (const id of exchange.unknownIds) add(normalized, path, { kind: 'unknown-id', field: '', target: id, sandbox: ABSENT_ID });
      // a field of a learned (or refused) record that our schema has no place for: kept in the
      // report, never guessed; the sandbox's records lack it
      for (const { id, fields } of exchange.unmapped ?? []) {
        const record = recordIn(exchange.target.body, id);
        for (const field of fields) {
          // a field the target did not send either is not the target's: the record was not learned (unknown-id)
          if (!record || !(field in record)) continue;
          add(normalized, path, {
            kind: 'missing-field',
            field: recordFieldPath(exchange.target.body, field),
            target: typeName(record[field]),
            sandbox: ABSENT,
          });
        }
      }
      // every request that is not compared is counted with its one reason: learning (never drift), a rate
      // limit (the target's budget, not a behaviour), an unknown id (data), no replay (./not-compared.ts)
      const skipped = whyNotCompared(exchange);
      if (skipped) return notCompared.note(method, path, exchange.requestId, skipped);
      compared++;
      // whyNotCompared answers for every exchange without a sandbox answer
      const comparison = compareAnswers(exchange.target, exchange.sandbox!, (status) => enums.enumsOf(method, path, status));
      for (const finding of comparison.findings) add(normalized, path, finding);
      for (const seen of comparison.nulls) observeNull(normalized, path, seen);
    },
    report(): ParityReportBody {
      const list = [
        ...differences.values(),
        ...nullabilityDifferences(nullStats, ignored).filter((d) => !differences.has(keyOf(d.kind, d.method, d.path, d.field))),
      ].map((d) => ({ ...d }));
      list.sort(byFrequency);
      return { requests, compared, differences: list, omitted, notCompared: notCompared.list() };
    },
    example(requestId) {
      return examples.get(requestId);
    },
    clear() {
      requests = compared = omitted = exampleBytes = 0;
      differences.clear();
      nullStats.clear();
      examples.clear();
      notCompared.clear();
    },
  };
}

/** what an unknown id's sandbox side shows: it had no such record, and could not learn it */
const ABSENT_ID = 'unknown to the sandbox';

/**
 * A value against null is not a `type` difference; nullability is, when over every exchange one
 * side was never null there and the other sometimes was.
 */
function nullabilityDifferences(stats: ReadonlyMap<string, NullStats>, ignored: ReturnType<typeof ignoreMatcher>): Difference[] {
  const out: Difference[] = [];
  for (const s of stats.values()) {
    if (s.mismatches === 0 || (s.targetNull && s.sandboxNull)) continue;
    if (ignored('type', s.method, s.path, s.field)) continue;
    out.push({
      kind: 'type',
      method: s.method,
      path: s.path,
      field: s.field,
      target: typesText(s.targetTypes, s.targetNull),
      sandbox: typesText(s.sandboxTypes, s.sandboxNull),
      count: s.mismatches,
      requestId: s.requestId,
    });
  }
  return out;
}

/** Drift first, most frequent first; `unknown-id` (data) after it; then by kind, operation and field, so the order is stable. */
function byFrequency(a: Difference, b: Difference): number {
  const data = Number(a.kind === 'unknown-id') - Number(b.kind === 'unknown-id');
  return (
    data ||
    b.count - a.count ||
    KIND_ORDER.get(a.kind)! - KIND_ORDER.get(b.kind)! ||
    a.path.localeCompare(b.path) ||
    a.method.localeCompare(b.method) ||
    a.field.localeCompare(b.field)
  );
}

/**
 * An answer as an example keeps it: the target's answers come from a real account, so its secrets
 * (a new organization key's `key`, a subscription's signing `secret`, a cookie) never stay
 * (src/core/redact.ts); the headers that only carry credentials are not kept at all.
 */
function withoutSecrets(answer: Answer): Answer {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (!SECRET_HEADERS.has(name.toLowerCase())) headers[name] = value;
  return { status: answer.status, headers: redactHeaders(headers), body: redactJson(answer.body) };
}

/** `data.passengers[0].secret` -> `secret`: the name a difference's value hangs from */
function lastFieldName(field: string): string | undefined {
  const last = field
    .split('.')
    .at(-1)
    ?.replace(/\[\d*\]$/g, '');
  return last ? last : undefined;
}
