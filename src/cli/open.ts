import { DEFAULT_STOP_TIMEOUT_MS } from '../config.ts';
import { bundleLines, writeBundleHar } from './bundle.ts';
import { plural, say } from './format.ts';
import { errorMessage, fail, printJson } from './output.ts';
import { sandboxInspectorUrl } from './start.ts';
import { armStopDeadline } from './stop-deadline.ts';

export interface OpenFlags {
  port: number;
  host: string;
  controlToken?: string;
  /** write the bundle's requests as HAR 1.2 to this file and exit, serving nothing */
  har?: string;
  /** open the inspector in a browser once serving */
  browser?: boolean;
  json?: boolean;
}

/**
 * `sandbox open <file>` (docs/inspector.md, "A bundle, offline"): serves a failure bundle read-only
 * in the inspector until Ctrl+C, and prints the URL, with the requests that failed linked to their
 * page; `--har <out>` writes its requests as HAR instead. The sandbox is src/bundle/open.ts's.
 */
export async function runOpen(file: string, flags: OpenFlags): Promise<void> {
  if (flags.har) {
    const { readBundleFile } = await import('../bundle/file.ts');
    const bundle = await readBundleFile(file).catch((err: unknown) => fail(errorMessage(err)));
    const count = await writeBundleHar(bundle, flags.har);
    if (flags.json) return printJson({ har: flags.har, entries: count });
    return say(`Wrote ${plural(count, 'request')} of ${file} to ${flags.har} (HAR 1.2)`);
  }
  const { openBundle } = await import('../bundle/open.ts');
  const opened = await openBundle(file, { port: flags.port, host: flags.host, ...(flags.controlToken ? { controlToken: flags.controlToken } : {}) }).catch(
    (err: unknown) => fail(errorMessage(err)),
  );
  const { sandbox, bundle, leftOut } = opened;
  for (const line of leftOut) process.stderr.write(`sandbox: left out of the bundle, refused by this sandbox: ${line}\n`);
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    const exit = armStopDeadline(DEFAULT_STOP_TIMEOUT_MS);
    sandbox.stop().then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  sandbox.context.stopRequest.handler = shutdown; // POST /__sandbox/stop, `sandbox stop --url`: a read-only sandbox lets itself be stopped
  const inspector = sandboxInspectorUrl(sandbox);
  if (flags.json)
    printJson({
      url: sandbox.url,
      inspectorUrl: inspector,
      file,
      savedAt: bundle.savedAt,
      requests: bundle.requests.entries.length,
      wrapped: bundle.requests.wrapped,
    });
  else process.stdout.write(`${bundleLines(bundle, file, inspector).join('\n')}\n`);
  if (flags.browser) void import('./open-browser.ts').then(({ openOrSay }) => openOrSay(inspector));
}
