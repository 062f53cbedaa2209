import { isRedacted } from '../core/redact.ts';
import { declaredCopiedSecrets } from '../storage/collection.ts';
import type { Collections, Row } from '../storage/index.ts';

/**
 * The secrets a bundle's state cannot do without. The database file keeps a webhook subscription's
 * signing secret whole, because signing needs it; a bundle travels (a CI artifact), so its state
 * has it redacted (./state-table.ts). A sandbox started on the bundle, or serving it, needs rows its
 * collections accept: each redacted field that an area declares as a secret (`copiedSecrets`, the
 * same declaration that gives a created workspace secrets of its own) gets a fresh value. The docs
 * say so (docs/cli.md, "The failure bundle"): a receiver checks signatures with the new secret
 * (`sandbox listen --print-secret`).
 */
export function freshSecrets(collections: Collections): number {
  let made = 0;
  for (const [name, makers] of declaredCopiedSecrets()) {
    for (const rows of Object.values(collections[name] ?? {})) {
      for (const [id, row] of Object.entries(rows)) {
        let fresh: Row | null = null;
        for (const [field, make] of Object.entries(makers)) {
          const value = row[field];
          if (typeof value === 'string' && isRedacted(value)) {
            fresh = { ...(fresh ?? row), [field]: make() };
            made += 1;
          }
        }
        if (fresh) rows[id] = fresh;
      }
    }
  }
  return made;
}
