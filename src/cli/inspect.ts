import { controlClient, controlToken, report, requireRunning, type ScriptFlags } from './control.ts';
import { inspectorUrl } from './inspector-url.ts';
import { openOrSay } from './open-browser.ts';

export interface InspectFlags extends ScriptFlags {
  open?: boolean;
}

/**
 * `sandbox inspect [--url] [--token] [--open] [--json]`: the browser
 * inspector's URL of a running sandbox (checked to answer first), with the
 * control token in its #fragment when one is given (--token or
 * $SANDBOX_CONTROL_TOKEN); --open opens it in a browser.
 */
export async function runInspect(flags: InspectFlags): Promise<void> {
  const client = await controlClient(flags);
  await requireRunning(client);
  const url = inspectorUrl(flags.url, controlToken(flags));
  report(flags, { inspectorUrl: url }, () => url);
  if (flags.open) await openOrSay(url);
}
