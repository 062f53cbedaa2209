import { createSandbox, type Sandbox } from '../sandbox.ts';
import { readBundleFile } from './file.ts';
import { loadRunStory, loadState } from './load.ts';
import type { Bundle } from './schema.ts';

export interface OpenBundleOptions {
  /** 0 (the default): any free port */
  port?: number;
  host?: string;
  controlToken?: string;
}

export interface OpenedBundle {
  sandbox: Sandbox;
  bundle: Bundle;
  /** rows of the bundle this sandbox refused and left out, one line each (src/bundle/load.ts) */
  leftOut: string[];
}

/**
 * `sandbox open <file>`: a sandbox that serves a bundle read-only (docs/inspector.md, "A bundle,
 * offline"). An ordinary sandbox in memory, so every view of the inspector reads it through the
 * control plane as it reads a live one, with three differences: its clock is manual and stands at
 * the bundle's time (nothing falls due, no webhook is sent); its request log, fault rules and
 * report are the run's; and it refuses /v1 and every control-plane write (src/core/read-only.ts),
 * with a sentence that names the file and the way to a live sandbox on it.
 */
export async function openBundle(file: string, options: OpenBundleOptions = {}): Promise<OpenedBundle> {
  const bundle = await readBundleFile(file);
  const sandbox = await createSandbox({
    port: options.port ?? 0,
    ...(options.host ? { host: options.host } : {}),
    ...(options.controlToken ? { controlToken: options.controlToken } : {}),
    storage: 'memory',
    clock: 'manual',
    clockStart: bundle.clock.nowMs,
  });
  // at once: the port is open, and whatever reaches it before the load must not change what the load puts there
  sandbox.context.readOnly.reason = `This sandbox serves the bundle ${file}, read-only: what it shows is the run it saved, so it takes no request on /v1 and changes nothing. To run requests on its state and clock, start a live sandbox on it: sandbox start --from-bundle ${file}`;
  let leftOut: string[];
  try {
    ({ leftOut } = await loadState(sandbox.context, bundle));
    loadRunStory(sandbox.context, bundle);
    // the views open on the workspace the run's commands used (an option, read when asked: core/workspace-lookup.ts)
    if (bundle.sandbox.defaultWorkspaceId) sandbox.context.options.defaultWorkspace = bundle.sandbox.defaultWorkspaceId;
  } catch (err) {
    await sandbox.stop().catch(() => undefined);
    throw err;
  }
  return { sandbox, bundle, leftOut };
}
