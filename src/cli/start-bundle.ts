import type { Bundle } from '../bundle/schema.ts';
import type { Sandbox } from '../sandbox.ts';
import { plural } from './format.ts';
import { errorMessage, fail } from './output.ts';

/** `sandbox start --from-bundle <file>` (docs/cli.md, "The failure bundle"): the bundle, read and checked before the sandbox starts. */
export async function readStartBundle(file: string): Promise<Bundle> {
  const { readBundleFile } = await import('../bundle/file.ts');
  return readBundleFile(file).catch((err: unknown) => fail(errorMessage(err)));
}

/**
 * --from-bundle: the bundle's state and clocks put into the sandbox just started, before anything
 * is printed (the banner's clock is the bundle's); one line says what came from where.
 */
export async function startOnBundle(sandbox: Sandbox, bundle: Bundle, file: string): Promise<void> {
  const { loadState } = await import('../bundle/load.ts');
  let fresh: number;
  let leftOut: string[];
  try {
    ({ freshSecrets: fresh, leftOut } = await loadState(sandbox.context, bundle));
  } catch (err) {
    await sandbox.stop().catch(() => undefined);
    fail(`cannot start on the bundle ${file}: ${errorMessage(err)}`);
  }
  const now = sandbox.clock.isoIn(null);
  sandbox.clockOrigin = {
    ...sandbox.clockOrigin,
    source: 'restored',
    now,
    workspaces: bundle.clock.workspaces.length,
    offsetMs: sandbox.clock.changes()[0]?.offsetMs ?? 0,
  };
  const secrets = fresh > 0 ? `; ${plural(fresh, 'webhook subscription')} got a fresh signing secret (sandbox listen --print-secret shows it)` : '';
  for (const line of leftOut) process.stderr.write(`sandbox: left out of the bundle, refused by this sandbox: ${line}\n`);
  process.stderr.write(`sandbox: started on the bundle ${file} (saved ${bundle.savedAt}): its state, and its clock at ${now}${secrets}\n`);
}
