import type { Command } from 'commander';
import { withUrlOptions, withWorkspace } from '../control.ts';
import { collect } from './options.ts';

/** `sandbox trigger <event-type>`: emit a catalogue event in a running sandbox. */
export function triggerCommand(program: Command): void {
  withWorkspace(
    withUrlOptions(program.command('trigger'))
      .description('emit a webhook event in a running sandbox')
      .argument('<event-type>', 'a catalogue event, e.g. booking.created'),
  )
    .option('--data <json>', 'the event data as a JSON object (default: made from the workspace)')
    .option('--override <key=value>', 'replace a field of the data, by dotted path (repeatable); the value is JSON or a string', collect)
    .option('--add <key=value>', 'add a field to the data, by dotted path (repeatable)', collect)
    .option('--json', 'print the event and delivery ids as one JSON line')
    .addHelpText(
      'after',
      '\nExamples:\n  $ npx sandbox trigger booking.created\n  $ npx sandbox trigger booking.created --override status=cancelled --add metadata.source=cli',
    )
    .action(async (type: string, opts) => {
      const { runTrigger } = await import('../trigger.ts');
      await runTrigger(type, opts);
    });
}
