import { randomUUID } from 'node:crypto';
import { badRequest } from './errors.ts';

/**
 * Prefixed ids (API description, "Conventions" 1): `<prefix>_<id>`. The id part
 * is a UUID, which reconciles fields the description types as `uuid` with the
 * prefixed shapes it shows: where a field is typed uuid, the bare UUID is
 * accepted too and normalized to the prefixed form (docs/api-notes.md).
 */
export const ID_PREFIX = {
  product: 'prod',
  departure: 'dept',
  booking: 'book',
  person: 'ppl',
  invoice: 'inv',
  orgKey: 'orgkey',
  organization: 'org',
  workspace: 'wksp',
  workspaceKey: 'wkey',
  wizardSession: 'ws',
  bookingItem: 'bkg',
  passenger: 'psg',
  policy: 'pol',
  collection: 'col',
  webhookSubscription: 'whsub',
  form: 'form',
  galleryFile: 'gal_file',
  pricingOption: 'p',
  extension: 'ext',
  event: 'evt',
  delivery: 'dlv',
  verification: 'ver',
} as const;

export type IdKind = keyof typeof ID_PREFIX;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: string): boolean => UUID.test(value);

export const newId = (kind: IdKind, uuid: string = randomUUID()): string => `${ID_PREFIX[kind]}_${uuid}`;

/**
 * Validates that `value` is an id of `kind` given in `field`. A wrong prefix is
 * a 400 naming the field; an unknown but well-formed id is the caller's 404.
 */
export function parseId(kind: IdKind, field: string, value: unknown): string {
  const prefix = `${ID_PREFIX[kind]}_`;
  if (typeof value === 'string') {
    if (value.startsWith(prefix) && isUuid(value.slice(prefix.length))) return value.toLowerCase();
    if (isUuid(value)) return `${prefix}${value.toLowerCase()}`;
  }
  throw badRequest('INVALID_ID', `Invalid ${field}: expected an id of the form ${prefix}<uuid>`);
}

/**
 * The bare UUID of a prefixed id (`prod_<uuid>` -> `<uuid>`), for the fields
 * the API description types `uuid` (docs/api-notes.md, "Ids").
 */
export const bareUuid = (id: string): string => id.slice(id.lastIndexOf('_') + 1);

/** Checks a plain uuid field (gallery folders use bare UUIDs). */
export function parseUuid(field: string, value: unknown): string {
  if (typeof value === 'string' && isUuid(value)) return value.toLowerCase();
  throw badRequest('INVALID_ID', `Invalid ${field}: expected a UUID`);
}
