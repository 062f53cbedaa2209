/**
 * How the CLI finds what a user names: a workspace by its id, its full name or an
 * unambiguous part of its name, in any case; a key by its id, the prefix every listing shows,
 * or the key itself. Pure, over what the control plane listed: ./control.ts and the commands
 * that take a key call them.
 */
export { pickWorkspace, type Named } from '../core/workspace-names.ts';

export interface KeyLike {
  id: string;
  keyPrefix: string;
  /** the key itself, where the sandbox shows it (fixture keys) */
  key?: string | null;
  name?: string;
}

/**
 * The key `given` names: its id, the key itself, or its listing prefix (`tcs_test_borealis_p`,
 * `tcs_test_borealis_p…` as copied from a listing). `what` names the kind in the error lines
 * ("workspace key"), `listed` the command that lists them.
 */
export function pickKey<T extends KeyLike>(keys: readonly T[], given: string, what: string, listed: string): T {
  const text = given.trim().replace(/(…|\.\.\.)$/, '');
  const exact = keys.find((k) => k.id === text || (k.key != null && k.key === text));
  if (exact) return exact;
  // a whole key starts with its prefix; a prefix (or more of it) names the keys it begins
  const matches = keys.filter((k) => text.startsWith(k.keyPrefix) || (text.length >= 6 && k.keyPrefix.startsWith(text)));
  // one key may be listed under two prefixes (an organization key's, with and without org_)
  const byPrefix = matches.filter((k, i) => matches.findIndex((other) => other.id === k.id) === i);
  if (byPrefix.length === 1) return byPrefix[0]!;
  if (byPrefix.length > 1) {
    throw new Error(`"${given}" begins ${byPrefix.length} ${what}s: ${byPrefix.map((k) => `${k.keyPrefix}… (${k.id})`).join(', ')}; give the id`);
  }
  throw new Error(`no ${what} "${given}": give its id, its prefix or the key itself (\`${listed}\` lists them)`);
}

/**
 * An organization key as it can be named: `org-keys list` shows its 8-character prefix, the key
 * itself and the request log start with `org_<prefix>`.
 */
export const orgKeyForms = <T extends { id: string; keyPrefix: string }>(key: T): (T & KeyLike)[] => [key, { ...key, keyPrefix: `org_${key.keyPrefix}` }];
