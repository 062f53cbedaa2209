import { randomUUID } from 'node:crypto';
import { badRequest } from './errors.ts';

/**
 * Prefixed ids (API description, "Conventions" 1): `<prefix>_<id>`. The id part
 * is a UUID, which reconciles fields the description types as `uuid` with the
 * prefixed shapes it shows: where a field is typed uuid, the bare UUID is
 * accepted too and normalized to the prefixed form (docs/api-notes.md).
 *
 * Each collection declares its own prefix (src/storage/collection.ts); these
 * functions take the collection (or anything with an `idPrefix`), so the
 * prefixes have one home. A null prefix means bare UUIDs (gallery folders).
 */
export interface IdSource {
  readonly idPrefix: string | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

export const idPrefixOf = (source: IdSource): string => (source.idPrefix === null ? '' : `${source.idPrefix}_`);

export const newId = (source: IdSource, uuid: string = randomUUID()): string => `${idPrefixOf(source)}${uuid}`;

/**
 * Validates that `value` is an id of `source` given in `field`. A wrong prefix
 * is a 400 naming the field; an unknown but well-formed id is the caller's 404.
 */
export function parseId(source: IdSource, field: string, value: unknown): string {
  if (source.idPrefix === null) return parseUuid(field, value);
  const prefix = idPrefixOf(source);
  if (typeof value === 'string') {
    if (value.startsWith(prefix) && isUuid(value.slice(prefix.length))) return value.toLowerCase();
    if (isUuid(value)) return `${prefix}${value.toLowerCase()}`;
  }
  throw badRequest('INVALID_ID', `Invalid ${field}: expected an id of the form ${prefix}<uuid>`).because('INVALID_ID', wrongIdReason(field, prefix, value));
}

/** What was wrong with an id (the INVALID_ID reason): the prefix it has, against the one the field takes. Built only when refusing. */
function wrongIdReason(field: string, prefix: string, value: unknown): string {
  if (typeof value !== 'string') return `${field} must be a string ${prefix}<uuid>, not ${value === null ? 'null' : typeof value}`;
  const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
  const sent = /^([a-z]+(?:_[a-z]+)*)_(.*)$/i.exec(value);
  if (!sent) return `${field} "${shown}" has no prefix; it takes ${prefix}<uuid> or a bare UUID`;
  const rest = isUuid(sent[2]!) ? 'a UUID' : 'no UUID';
  if (`${sent[1]}_` === prefix) return `${field} "${shown}" has the right prefix ${prefix} but ${rest} after it`;
  return `${field} "${shown}" has the prefix ${sent[1]}_ (and ${rest} after it); ${field} takes ${prefix}<uuid> or a bare UUID`;
}

export const bareUuid = (id: string): string => id.slice(id.lastIndexOf('_') + 1);

/** Checks a plain uuid field (gallery folders use bare UUIDs). */
export function parseUuid(field: string, value: unknown): string {
  if (typeof value === 'string' && isUuid(value)) return value.toLowerCase();
  throw badRequest('INVALID_ID', `Invalid ${field}: expected a UUID`);
}
