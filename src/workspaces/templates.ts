import { createHash, createHmac } from 'node:crypto';
import type { Collections, Row } from '../storage/types.ts';
import { WEBHOOK_SUBSCRIPTIONS } from '../resources/webhooks/collections.ts';

/**
 * Templates of created workspaces: a fixture workspace's fixture-generated
 * data (the state a reset returns it to), not its live data, so a copy is
 * the same whatever other tests did to the template. A template's rows are
 * stored once per content (`baseId` = template id + content hash) and shared
 * by every workspace created from it (src/storage/overlay-store.ts).
 */
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
    const hash = createHash('sha256').update(JSON.stringify([...rows])).digest('hex').slice(0, 16);
    base = { baseId: `${templateId}.${hash}`, templateId, rows };
    cached!.bases.set(templateId, base);
  }
  return base;
}

/**
 * Beyond ids, a copy gets fresh webhook signing secrets, derived from its
 * mask, so a receiver of one workspace cannot verify another's deliveries.
 */
export function freshenCopiedRow(collection: string, row: Row, overlay: { mask: string }): Row {
  if (collection !== WEBHOOK_SUBSCRIPTIONS.name || typeof row.secret !== 'string') return row;
  const derived = createHmac('sha256', overlay.mask).update(row.secret).digest('base64');
  return { ...row, secret: `whsec_${derived}` };
}
