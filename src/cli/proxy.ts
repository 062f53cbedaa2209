import { DEFAULT_STOP_TIMEOUT_MS, DEFAULT_TARGET_MAX_BODY_BYTES, DEFAULT_TARGET_TIMEOUT_MS } from '../config.ts';
import type { IgnoreRule } from '../parity/types.ts';
import type { Sandbox } from '../sandbox.ts';
import { readIgnoreFile } from '../parity/ignore.ts';
import { errorMessage, bold, cyan, dim, fail, green, printJson } from './output.ts';
import { openCliSandbox, printStopped, startOptions, type StartFlags } from './start.ts';
import { armStopDeadline, endNow } from './stop-deadline.ts';

/**
 * `sandbox proxy` (docs/parity.md): `start`'s sandbox, on
 * --sandbox-port, with the parity proxy on --port in front of --target. The
 * ready line's `url` is the proxy's, which clients use instead of the real
 * base URL; `sandboxUrl` and `controlUrl` are the sandbox's own.
 */
export interface ProxyFlags extends StartFlags {
  target: string;
  workspace?: string;
  record?: string;
  ignore?: IgnoreRule[];
  ignoreFile?: string;
  sandboxPort: number;
  /** milliseconds */
  targetTimeout?: number;
  /** bytes */
  targetMaxBody?: number;
}

export async function runProxy(flags: ProxyFlags): Promise<Sandbox> {
  let sandbox: Sandbox | undefined;
  let stopping = false;
  const shutdown = (exitCode = 0) => {
    if (stopping) return endNow('a second signal came while stopping');
    stopping = true;
    const exit = armStopDeadline(flags.stopTimeout ?? DEFAULT_STOP_TIMEOUT_MS);
    if (!sandbox) return exit(exitCode);
    sandbox.stop().then(
      (summary) => {
        // the same exit line as `sandbox start`: a script that stops the proxy reads how the stop went
        printStopped(summary, flags);
        exit(exitCode);
      },
      (err) => {
        process.stderr.write(`sandbox: could not stop cleanly: ${errorMessage(err).split('\n')[0]}\n`);
        exit(1);
      },
    );
  };
  let ignore: IgnoreRule[];
  try {
    ignore = [...(flags.ignoreFile ? readIgnoreFile(flags.ignoreFile) : []), ...(flags.ignore ?? [])];
  } catch (err) {
    fail(errorMessage(err));
  }
  process.on('SIGINT', () => shutdown());
  process.on('SIGTERM', () => shutdown());
  sandbox = await openCliSandbox(
    {
      ...startOptions({ ...flags, port: flags.sandboxPort }),
      proxy: {
        target: flags.target,
        port: flags.port,
        timeoutMs: flags.targetTimeout ?? DEFAULT_TARGET_TIMEOUT_MS,
        maxBodyBytes: flags.targetMaxBody ?? DEFAULT_TARGET_MAX_BODY_BYTES,
        ignore,
        ...(flags.workspace ? { workspace: flags.workspace } : {}),
        ...(flags.record ? { record: flags.record } : {}),
      },
    },
    flags,
  );
  sandbox.context.stopRequest.handler = () => shutdown();
  for (const warning of sandbox.warnings) process.stderr.write(`sandbox: ${warning}\n`);
  if (flags.json) printJson(proxySummary(sandbox));
  else process.stdout.write(proxyBanner(sandbox, flags));
  return sandbox;
}

/** The ready line: nothing secret (the workspace's key is the sandbox's own fixture key, never the client's). */
export function proxySummary(sandbox: Sandbox) {
  const proxy = sandbox.proxy!;
  return {
    url: proxy.url,
    sandboxUrl: sandbox.url,
    controlUrl: sandbox.controlUrl,
    ...(sandbox.controlToken ? { controlToken: sandbox.controlToken } : {}),
    parityUrl: `${sandbox.controlUrl}/parity`,
    target: proxy.target,
    workspaceId: proxy.workspaceId,
  };
}

function proxyBanner(sandbox: Sandbox, flags: ProxyFlags): string {
  const proxy = sandbox.proxy!;
  return `${[
    '',
    `${green('●')} ${bold('travel-commerce-sandbox')} parity proxy on ${cyan(proxy.url)} in front of ${cyan(proxy.target)}`,
    dim(`  point your client at ${proxy.url} instead of ${proxy.target}, with its real key: it gets the target's answers unchanged`),
    dim(`  each /v1 request is replayed in workspace ${proxy.workspaceId} of the sandbox at ${sandbox.url}`),
    ...(flags.record ? [dim(`  what it learns is recorded in ${flags.record} (sandbox start --fixtures ${flags.record})`)] : []),
    '',
    `  report         ${sandbox.controlUrl}/parity   (npx sandbox parity --url ${proxy.url})`,
    dim('  Ctrl+C stops it.'),
    '',
  ].join('\n')}\n`;
}
