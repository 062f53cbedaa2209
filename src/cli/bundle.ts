import { writeFile } from 'node:fs/promises';
import packageJson from '../../package.json' with { type: 'json' };
import type { Bundle } from '../bundle/schema.ts';
import { harOf } from '../bundle/har.ts';
import type { Sandbox } from '../sandbox.ts';
import { controlClient, type ScriptFlags } from './control.ts';
import { say } from './format.ts';
import { bold, cyan, dim, green, printJson, yellow } from './output.ts';
import { formatBytes } from './state.ts';
import { releaseHeapLimits } from './young-generation.ts';

/**
 * The failure bundle from the CLI (docs/cli.md, "The failure bundle"): `sandbox exec --bundle`
 * and `--bundle-on-failure` (saveExecBundle), `sandbox bundle save` from a running sandbox, and
 * the lines `sandbox open` prints about the one it serves.
 */
export const openLine = (file: string): string => `npx sandbox open ${/^[\w./@:+-]+$/.test(file) ? file : `'${file.replace(/'/g, "'\\''")}'`}`;

/**
 * What exec writes at the end of a run: the bundle of `sandbox` (still running) with the command
 * and its exit code; the line exec prints, and whether it was written (a file that cannot be
 * written is said, and fails a run that had passed, as a report that cannot be written does).
 */
export async function saveExecBundle(
  sandbox: Sandbox,
  file: string,
  run: { command: string[]; exitCode: number },
): Promise<{ line: string; written: boolean }> {
  // the run is over: the heap's limits were for serving it (./young-generation.ts)
  releaseHeapLimits();
  try {
    const [{ bundleMembers }, { writeBundleFile }] = await Promise.all([import('../bundle/collect.ts'), import('../bundle/file.ts')]);
    const members = await bundleMembers(sandbox.context, { run, url: sandbox.url });
    await writeBundleFile(file, members);
    const bytes = members.reduce((sum, member) => sum + member.length, 0);
    return { line: `bundle: ${file} (${formatBytes(bytes)}); open it with \`${openLine(file)}\``, written: true };
  } catch (err) {
    return { line: `sandbox: cannot write the bundle to ${file}: ${(err as Error).message}`, written: false };
  }
}

/** `sandbox bundle save <file>`: GET /__sandbox/bundle of a running sandbox, written whole. */
export async function runBundleSave(file: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const bytes = await client.bundle();
  const { writeBundleFile } = await import('../bundle/file.ts');
  await writeBundleFile(file, bytes).catch((err: Error) => {
    throw new Error(`cannot write the bundle to ${file}: ${err.message}`);
  });
  if (flags.json) return printJson({ file, bytes: bytes.length });
  say(`Saved the bundle of ${client.baseUrl} to ${file} (${formatBytes(bytes.length)}); open it with \`${openLine(file)}\``);
}

/** `--har <out>`: the bundle's requests as HAR 1.2, oldest first (src/bundle/har.ts). */
export async function writeBundleHar(bundle: Bundle, out: string): Promise<number> {
  const har = harOf(bundle.requests.entries, { name: 'travel-commerce-sandbox', version: packageJson.version }, bundle.sandbox.url ?? 'http://127.0.0.1:4010');
  await writeFile(out, `${JSON.stringify(har, null, 2)}\n`).catch((err: Error) => {
    throw new Error(`cannot write the HAR to ${out}: ${err.message}`);
  });
  return bundle.requests.entries.length;
}

const clipped = (text: string) => (text.length > 80 ? `${text.slice(0, 79)}…` : text);

/** What `sandbox open` says of a bundle before its URL: when and from what run, what the log holds, the requests that failed. */
export function bundleLines(bundle: Bundle, file: string, inspector: string): string[] {
  const { requests, run, clock } = bundle;
  const failed = requests.entries.filter((e) => e.status >= 400 || e.status === 0);
  const lines = [
    '',
    `${green('●')} ${bold('travel-commerce-sandbox')} is serving the bundle ${cyan(file)}, read-only`,
    dim(
      `  saved ${bundle.savedAt} by travel-commerce-sandbox ${bundle.sandbox.version}${run ? `; \`${clipped(run.command.join(' '))}\` exited ${run.exitCode}` : ''}`,
    ),
    dim(`  clock: ${clock.mode === 'manual' ? 'manual' : 'real'} at ${clock.now}, standing still`),
    '',
    `  requests   ${requests.entries.length} in the log, ${failed.length} failed (4xx, 5xx or dropped), ${requests.withDetail} with headers and bodies`,
  ];
  if (requests.wrapped)
    lines.push(
      yellow(
        `  the log wrapped: the run made ${requests.seen} requests and the log keeps the last ${requests.capacity}; the first ${requests.seen - requests.entries.length} are not in this bundle`,
      ),
    );
  for (const entry of failed.slice(-5).reverse()) {
    lines.push(
      `    ${entry.method.padEnd(6)} ${entry.path}  ${yellow(entry.status === 0 ? 'dropped' : String(entry.status))}  ${entry.reason ?? ''}`.trimEnd(),
    );
    lines.push(dim(`           ${inspector}requests/${entry.requestId}`));
  }
  lines.push(
    '',
    `  inspector  ${cyan(inspector)}`,
    dim('  Ctrl+C stops it. Writes are refused: `sandbox start --from-bundle <file>` serves its state live.'),
    '',
  );
  return lines;
}
