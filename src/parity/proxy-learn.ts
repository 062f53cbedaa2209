import { redactJson } from '../core/redact.ts';
import { z } from 'zod';
import type { Collection, Store, StoredRow } from '../storage/index.ts';
import { EXTENSIONS, PRICING_OPTIONS, PRODUCT_COLLECTIONS } from '../resources/catalog/collections.ts';
import { DEPARTURES } from '../resources/departures/collections.ts';
import { FORMS } from '../resources/forms/collections.ts';
import { PEOPLE } from '../resources/people/collections.ts';
import { POLICIES } from '../resources/policies/collections.ts';
import { PRODUCTS } from '../resources/products/collections.ts';

/**
 * Learning (docs/parity.md, "Recording"): a record the target returned and the sandbox never saw
 * (the user's real catalog) is written into the sandbox workspace as the
 * target returned it, mapped onto the sandbox's record schema field by field.
 * Nothing is guessed: a field whose value does not fit our schema, or that
 * the target did not send, is left out and named in `unmapped`; a record that
 * then misses a required field is not learned at all (its id is an
 * `unknown-id`). Only catalog-like records are learned: never credentials,
 * webhook secrets or bookings (state the client makes through the proxy).
 */
const LEARNABLE: readonly Collection[] = [PRODUCTS, DEPARTURES, PEOPLE, POLICIES, FORMS, PRODUCT_COLLECTIONS, PRICING_OPTIONS, EXTENSIONS];

/**
 * A reference the request's path names: `GET /v1/products/prod_1/pricing/options` answers the
 * options of prod_1, so an option without `productId` belongs to it. Filled by rule, as the
 * workspace is; any other missing reference is not guessed.
 */
const PATH_REFERENCES: Readonly<Record<string, Collection>> = { productId: PRODUCTS, departureId: DEPARTURES, personId: PEOPLE };

/** The learnable collection an id belongs to, by its prefix (`prod_`, `dept_`, `ppl_`, ...). */
export function learnableCollectionOf(id: string): Collection | undefined {
  return LEARNABLE.find((c) => c.idPrefix !== null && id.startsWith(`${c.idPrefix}_`));
}

export interface MappedRecord {
  /** the row, valid against the collection's schema; null when a required field could not be mapped */
  row: StoredRow | null;
  /** our fields the target's record gave no fitting value for (left null or absent, or why it was not learned) */
  unmapped: string[];
}

/** Fields filled by rule, not guessed: the workspace a row belongs to, and the time of learning for missing timestamps. */
const WORKSPACE_FIELDS = new Set(['workspace_id', 'workspaceId']);
const TIME_FIELDS = new Set(['createdAt', 'updatedAt', 'created_at', 'updated_at']);

export interface Fill {
  workspaceId: string;
  nowIso: string;
  /** the ids in the request's path, for PATH_REFERENCES */
  pathIds?: readonly string[];
}

export function mapRecord(collection: Collection, raw: Record<string, unknown>, fill: Fill): MappedRecord {
  const schema = collection.schema;
  if (!(schema instanceof z.ZodObject)) return { row: null, unmapped: ['(record schema is not an object)'] };
  const shape: Record<string, z.ZodType> = schema.shape;
  const row: Record<string, unknown> = {};
  const unmapped: string[] = [];
  let complete = true;
  for (const [field, fieldSchema] of Object.entries(shape)) {
    const value = valueFor(raw, field);
    if (value !== undefined && fieldSchema.safeParse(value).success) {
      row[field] = value;
      continue;
    }
    const fromPath = value === undefined ? pathReference(field, fill.pathIds) : undefined;
    if (WORKSPACE_FIELDS.has(field)) row[field] = fill.workspaceId;
    else if (fromPath !== undefined) row[field] = fromPath;
    else if (TIME_FIELDS.has(field) && value === undefined) row[field] = fill.nowIso;
    else if (fieldSchema.safeParse(null).success) {
      row[field] = null; // null: unknown, not a guess
      unmapped.push(field);
    } else if (fieldSchema.safeParse(undefined).success) unmapped.push(field);
    else {
      unmapped.push(field);
      complete = false;
    }
  }
  if (!complete) return { row: null, unmapped };
  // a record of the real account: a secret in it (by name or by shape: a token in free-form metadata) is not kept
  const parsed = schema.safeParse(redactJson(row));
  if (!parsed.success) return { row: null, unmapped: [...unmapped, ...parsed.error.issues.map((i) => i.path.join('.') || '(record)')] };
  return { row: parsed.data as StoredRow, unmapped };
}

function pathReference(field: string, pathIds: readonly string[] | undefined): string | undefined {
  const target = PATH_REFERENCES[field];
  return target?.idPrefix ? pathIds?.find((id) => id.startsWith(`${target.idPrefix}_`)) : undefined;
}

/** The target's value for our field: the same name, else its camelCase or snake_case spelling. */
function valueFor(raw: Record<string, unknown>, field: string): unknown {
  if (field in raw) return raw[field];
  const snake = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  if (snake in raw) return raw[snake];
  const camel = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  return camel in raw ? raw[camel] : undefined;
}

/** The records an answer carries: a bare record, `{data: record}`, or a page (`data[]`, `items[]`). */
export function recordsIn(body: unknown): Record<string, unknown>[] {
  if (!isObject(body)) return [];
  const inner = 'data' in body ? body.data : 'items' in body ? body.items : body;
  if (Array.isArray(inner)) return inner.filter(isObject).filter((r) => typeof r.id === 'string');
  return isObject(inner) && typeof inner.id === 'string' ? [inner] : [];
}

export interface LearnOutcome {
  learned: { collection: string; row: StoredRow; unmapped: string[] }[];
  /** ids of learnable kinds that could not be learned */
  failed: { id: string; unmapped: string[] }[];
}

/**
 * Learns each record of the target's answer that the workspace does not hold.
 * `only`, when given, limits it to those ids (the record a sandbox 404 was about);
 * `paired` ids are never learned: the sandbox holds them under its own id.
 */
export async function learnFrom(
  store: Store,
  fill: Fill,
  targetBody: unknown,
  paired: (id: string) => boolean,
  only?: ReadonlySet<string>,
): Promise<LearnOutcome> {
  const { workspaceId } = fill;
  const outcome: LearnOutcome = { learned: [], failed: [] };
  const ops = [];
  for (const raw of recordsIn(targetBody)) {
    const id = raw.id as string;
    if ((only && !only.has(id)) || paired(id)) continue;
    const collection = learnableCollectionOf(id);
    if (!collection) continue;
    const repo = collection.in(store);
    if (repo.has(workspaceId, id)) continue;
    const mapped = mapRecord(collection, raw, fill);
    if (!mapped.row) {
      outcome.failed.push({ id, unmapped: mapped.unmapped });
      continue;
    }
    ops.push(repo.putOp(workspaceId, mapped.row));
    outcome.learned.push({ collection: collection.name, row: mapped.row, unmapped: mapped.unmapped });
  }
  if (ops.length > 0) await store.commit(ops);
  return outcome;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
