import { createHash } from 'node:crypto';
import { z } from 'zod';
import { declaredCopiedSecrets, defineCollection, maskId, type Collections, type IdMask, type Row } from '../storage/index.ts';

/**
 * Templates of created workspaces: a fixture workspace's fixture-generated
 * data (the state a reset returns it to), not its live data, so a copy is
 * the same whatever other tests did to the template. A template's rows are
 * stored once per content (`baseId` = template id + content hash) and shared
 * by every workspace created from it (src/storage/overlay-store.ts).
 */
/** The template bases (one row each, in the global partition); declared so that an imported state can be checked (control/state-import.ts) */
export const BASES = defineCollection({
  name: 'workspaceOverlayBases',
  schema: z.object({ id: z.string(), templateId: z.string(), createdAt: z.string() }),
  idPrefix: null,
  internal: true,
});

export interface TemplateBase {
  baseId: string;
  templateId: string;
  /** collection -> rows of the template workspace, in fixture order */
  rows: Map<string, Row[]>;
}

let cached: { json: string; parsed: Collections | null; bases: Map<string, TemplateBase> } | null = null;

/** The fixture-generated collections, parsed once per version of the fixture JSON. */
export function parsedFixtures(json: string): Collections {
  if (cached?.json !== json) cached = { json, parsed: null, bases: new Map() };
  cached.parsed ??= JSON.parse(json) as Collections;
  return cached.parsed;
}

/**
 * Credentials and sandbox bookkeeping are never copied: a copy gets fresh keys
 * and no history. Each collection says whether it is (`copied`, src/storage/collection.ts).
 */
export function templateBase(json: string, templateId: string, copied: (collection: string) => boolean): TemplateBase {
  const collections = parsedFixtures(json);
  let base = cached!.bases.get(templateId);
  if (!base) {
    const rows = new Map<string, Row[]>();
    for (const [collection, partitions] of Object.entries(collections)) {
      const partition = partitions[templateId];
      if (!copied(collection) || !partition) continue;
      rows.set(collection, Object.values(partition));
    }
    const hash = createHash('sha256')
      .update(JSON.stringify([...rows]))
      .digest('hex')
      .slice(0, 16);
    base = { baseId: `${templateId}.${hash}`, templateId, rows };
    cached!.bases.set(templateId, base);
  }
  return base;
}

/**
 * The secrets among the fields of copied rows, and how a fresh one is made
 * (a created workspace never holds its template's secrets), as each area declares them on its collections
 * (`copiedSecrets`). Credentials of their own (API keys, organization keys,
 * verification codes, wizard sessions) are never copied (`copied: false`);
 * webhook signing secrets are the one secret in what is.
 */
const COPIED_SECRETS = declaredCopiedSecrets();

/** a secret's key in the overlay record: `<collection>/<row id in the workspace>/<field>` */
const secretKey = (collection: string, rowId: string, field: string) => `${collection}/${rowId}/${field}`;

/**
 * New random values (crypto.randomBytes) for every secret of the template's
 * copied rows, stored in the created workspace's overlay record. A secret
 * computed from the mask and the template's secret could be computed by
 * anyone who knows both (the mask follows from two workspace ids, fixture
 * secrets from the seed), so it is drawn instead, and kept so that it stays
 * the same across reads, restarts, resets and snapshots.
 */
export function freshSecrets(base: TemplateBase, mask: IdMask): Record<string, string> {
  const secrets: Record<string, string> = {};
  for (const [collection, fields] of COPIED_SECRETS) {
    for (const row of base.rows.get(collection) ?? []) {
      for (const [field, fresh] of Object.entries(fields)) {
        if (typeof row[field] === 'string') secrets[secretKey(collection, maskId(row.id, mask), field)] = fresh();
      }
    }
  }
  return secrets;
}

/**
 * A workspace created before its secrets were stored (a database from an
 * older version) gets new random ones once per process: never the template's,
 * never derived from public ids. They change at a restart.
 */
const unstoredSecrets = new Map<string, string>();

/** A base row as a created workspace sees it: its secrets are the workspace's own (`freshSecrets`). */
export function freshenCopiedRow(collection: string, row: Row, overlay: { id: string; secrets?: Readonly<Record<string, string>> | undefined }): Row {
  const fields = COPIED_SECRETS.get(collection);
  if (!fields) return row;
  let out = row;
  for (const [field, fresh] of Object.entries(fields)) {
    if (typeof row[field] !== 'string') continue;
    const key = secretKey(collection, row.id, field);
    let secret = overlay.secrets?.[key];
    if (secret === undefined) {
      const unstored = `${overlay.id}/${key}`;
      secret = unstoredSecrets.get(unstored) ?? fresh();
      unstoredSecrets.set(unstored, secret);
    }
    out = { ...out, [field]: secret };
  }
  return out;
}
