import type { Command } from 'commander';
import { controlCommand } from '../control.ts';
import { group, parseInteger } from './options.ts';

/**
 * The failure bundle (docs/cli.md, "The failure bundle"): `sandbox bundle save <file>` from a
 * running sandbox, and `sandbox open <file>`, which serves one read-only in the inspector.
 */
export function bundleCommand(program: Command): void {
  const bundle = group(program, 'bundle', 'the failure bundle: state, requests, deliveries, clocks of a run in one file', 'bundle save sandbox-bundle.json.gz');
  controlCommand(bundle, 'save', 'write the bundle of a running sandbox (GET /__sandbox/bundle); `sandbox open <file>` serves it', [
    'bundle save sandbox-bundle.json.gz',
  ])
    .argument('<file>', 'where to write it (gzip-compressed JSON)')
    .action(async (file: string, opts) => (await import('../bundle.ts')).runBundleSave(file, opts));
}

export function openCommand(program: Command): void {
  program
    .command('open')
    .description('serve a failure bundle read-only in the inspector (its requests, data, webhooks, time and keys), and print the URL')
    .argument('<file>', 'a bundle: sandbox exec --bundle, --bundle-on-failure or sandbox bundle save wrote it')
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', parseInteger('--port', 0, 65535), 0)
    .option('--host <host>', 'interface to bind (loopback by default)', '127.0.0.1')
    .option('--control-token <token>', 'token for /__sandbox when bound to a non-loopback host')
    .option('--har <out>', 'write the bundle’s requests as HAR 1.2 to <out> and exit, serving nothing')
    .option('--browser', 'open the inspector in a browser once serving ($SANDBOX_BROWSER, else xdg-open / open / start)')
    .option('--json', 'print one JSON line with the URL instead of the summary')
    .addHelpText(
      'after',
      '\nExamples:\n  $ npx sandbox open sandbox-bundle.json.gz\n  $ npx sandbox open sandbox-bundle.json.gz --port 4020 --browser\n  $ npx sandbox open sandbox-bundle.json.gz --har requests.har',
    )
    .action(async (file: string, opts) => (await import('../open.ts')).runOpen(file, opts));
}
