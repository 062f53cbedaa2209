import { isRedacted } from '../core/redact.ts';
import { declaredCopiedSecrets } from '../storage/index.ts';
import type { Collections, Row } from '../storage/index.ts';
import { OVERLAYS } from '../storage/index.ts';

/**
 * The secrets a bundle's state cannot do without. The database file keeps a webhook subscription's
 * signing secret whole, because signing needs it; a bundle travels (a CI artifact), so its state
 * has it redacted (./state-table.ts). A sandbox started on the bundle, or serving it, needs rows its
 * collections accept: each redacted field that an area declares as a secret (`copiedSecrets`, the
 * same declaration that gives a created workspace secrets of its own) gets a fresh value, and so
 * does each of a created workspace's own secrets (its overlay record's `secrets`, keyed
 * `collection/rowId/field`). The docs say so (docs/cli.md, "The failure bundle"): a receiver checks
 * signatures with the new secret (`sandbox listen --print-secret`).
 */
export function freshSecrets(collections: Collections): number {
  const declared = declaredCopiedSecrets();
  let made = 0;
  const fresh = (collection: string, field: string, value: unknown): string | null => {
    const make = declared.get(collection)?.[field];
    if (!make || typeof value !== 'string' || !isRedacted(value)) return null;
    made += 1;
    return make();
  };
  for (const [name, makers] of declared) {
    for (const rows of Object.values(collections[name] ?? {})) {
      for (const [id, row] of Object.entries(rows)) {
        let changed: Row | null = null;
        for (const field of Object.keys(makers)) {
          const value = fresh(name, field, row[field]);
          if (value !== null) changed = { ...(changed ?? row), [field]: value };
        }
        if (changed) rows[id] = changed;
      }
    }
  }
  for (const rows of Object.values(collections[OVERLAYS.name] ?? {})) {
    for (const [id, row] of Object.entries(rows)) {
      const secrets = row.secrets as Record<string, string> | undefined;
      if (!secrets) continue;
      const own: Record<string, string> = {};
      for (const [key, value] of Object.entries(secrets)) {
        const [collection = '', , field = ''] = key.split('/');
        own[key] = fresh(collection, field, value) ?? value;
      }
      rows[id] = { ...row, secrets: own };
    }
  }
  return made;
}
