import type { Command } from 'commander';
import { withUrlOptions, withWorkspace } from '../control.ts';

/** `sandbox listen --forward-to <url>`: webhooks of a running sandbox, delivered to a local URL. */
export function listenCommand(program: Command): void {
  withWorkspace(
    withUrlOptions(program.command('listen'))
      .description('deliver webhooks from a running sandbox to a local URL and print each delivery')
      .requiredOption('--forward-to <url>', 'the receiver, e.g. http://localhost:3000/webhooks')
      .option('--events <patterns>', 'comma-separated event names or patterns', '*'),
  )
    .option('--print-secret', 'print only the signing secret and exit; changes nothing (a first call creates the subscription paused)')
    .option('--json', 'one JSON line per delivery attempt on stdout (the banner goes to stderr)')
    .option('--no-reconnect', 'exit (code 1) when the sandbox stops, rather than wait for it to come back on the same URL')
    .addHelpText(
      'after',
      "\nWithout --workspace: the sandbox's default workspace (that of the README's key, unless the sandbox or $SANDBOX_WORKSPACE names another); each workspace has its own subscription and signing secret.\nCtrl+C stops listening and pauses the subscription, cancelling its pending deliveries, so nothing retries into a closed port.\nA reset, a snapshot restore or a state import makes the subscription again; a sandbox that stops is waited for on the same URL.\n\nExamples:\n  $ npx sandbox listen --forward-to http://localhost:3000/webhooks --events 'booking.*'\n  $ export WEBHOOK_SECRET=$(npx sandbox listen --forward-to http://localhost:3000/webhooks --print-secret)",
    )
    .action(async (opts) => {
      const { runListen } = await import('../listen.ts');
      await runListen(opts);
    });
}
