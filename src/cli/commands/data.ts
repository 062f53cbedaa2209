import { Option, type Command } from 'commander';
import { controlCommand, withWorkspace } from '../control.ts';
import { parseInteger } from './options.ts';

/** `sandbox data [collection]`: the records of a running sandbox's workspace (the data inspector's routes). */
export function dataCommand(program: Command): void {
  withWorkspace(
    controlCommand(program, 'data', "list a workspace's collections, or a page of one collection's records", [
      'data',
      'data bookings --limit 20 --offset 100',
      'data people --q smith',
      'data bookings --id book_7d7a085f-47f1-431d-b7a8-6002c6ab5e96',
    ]),
  )
    .argument('[collection]', 'a collection, as `sandbox data` lists them (bookings, webhook_subscriptions, ...)')
    .option('--limit <n>', 'rows per page (default 100)', parseInteger('--limit', 1, 500))
    .option('--offset <n>', 'rows to skip (default 0)', parseInteger('--offset', 0, Number.MAX_SAFE_INTEGER))
    .option('--q <text>', 'only rows whose JSON holds this text (any case)')
    .addOption(new Option('--id <id>', 'one record, with the ids it holds and what points to it').conflicts(['q', 'offset', 'limit']))
    .action(async (collection: string | undefined, opts) => (await import('../data.ts')).runData(collection, opts));
}
