/**
 * A workspace as a person names it: its id, its full name or an unambiguous part of
 * its name, in any case. Pure, over a list the caller has: the CLI's --workspace
 * (src/cli/lookup.ts), MCP's `workspace` argument, and the sandbox's own default workspace
 * (./default-workspace.ts) all read a name this way.
 */
export interface Named {
  id: string;
  name: string;
}

/**
 * The workspace `given` names, or an error line: none matches (the known ones listed), or several
 * do (the candidates listed). `subject` says where the name came from when it was not --workspace
 * (`SANDBOX_WORKSPACE="aurora"`), and opens both lines.
 */
export function pickWorkspace<T extends Named>(workspaces: readonly T[], given: string, subject?: string): T {
  const lower = given.trim().toLowerCase();
  const exact = workspaces.find((w) => w.id === given.trim() || w.name.toLowerCase() === lower);
  if (exact) return exact;
  const partial = lower === '' ? [] : workspaces.filter((w) => w.name.toLowerCase().includes(lower) || w.id.startsWith(given.trim()));
  if (partial.length === 1) return partial[0]!;
  if (partial.length > 1)
    throw new Error(`${subject ?? `--workspace "${given}"`} matches ${partial.length} workspaces: ${listNamed(partial)}; give more of the name, or the id`);
  throw new Error(`${subject ? `${subject} names no workspace` : `no workspace "${given}"`}; known: ${listNamed(workspaces)}`);
}

/** `Aurora Tours (wksp_…), Borealis Adventures (sandbox) (wksp_…)` */
export const listNamed = (items: readonly Named[]): string => items.map((w) => `${w.name} (${w.id})`).join(', ');
