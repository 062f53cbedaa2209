import { InvalidArgumentError, type Command } from 'commander';
import { parseIgnoreFlag } from '../../parity/ignore.ts';
import type { IgnoreRule } from '../../parity/types.ts';
import { durationOption } from '../duration.ts';
import { withEnvOptions } from '../env-options.ts';
import { sizeOption } from '../size.ts';
import { parseInteger } from './options.ts';
import { withServeOptions } from './start.ts';

/** config.ts's MAX_TARGET_MAX_BODY_BYTES (1 GiB), written again: config.ts loads zod, which parsing a flag does not need */
const MAX_TARGET_MAX_BODY_BYTES = 1024 ** 3;

/** `--ignore <rule>`, repeatable, in the flag form of src/parity/ignore.ts (docs/parity.md, "Ignore rules"). */
export function collectIgnoreRule(value: string, previous: IgnoreRule[] = []): IgnoreRule[] {
  try {
    return [...previous, parseIgnoreFlag(value)];
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** `sandbox proxy --target <url>`: the parity proxy (docs/parity.md), with every option of `start`. */
export function proxyCommand(program: Command): void {
  const proxy = withServeOptions(
    program
      .command('proxy')
      .description(
        'sit in front of the real API: clients get its answers unchanged, each request is replayed in the sandbox and the differences reported (GET /__sandbox/parity)',
      ),
    { port: 4010, inMemoryByDefault: true },
  )
    .requiredOption('--target <url>', "the real API's base URL, e.g. https://api.example.com (the only place /v1 requests are forwarded)")
    .option('--workspace <id or name>', 'the fixture workspace the replays run in (default: the first sandbox-mode one)')
    .option('--record <dir>', 'write what the proxy learned (products, departures, people, ...) as a fixtures directory for `sandbox start --fixtures <dir>`')
    .option(
      '--ignore <rule>',
      "a difference not to report: '[METHOD ]<path glob>[:<kind>[:<field glob>]]', e.g. 'GET /v1/products*:extra-field'; repeatable",
      collectIgnoreRule,
    )
    .option(
      '--ignore-file <file>',
      'ignore rules from a JSON file: a list of rules (objects {path, kind?, field?} or strings in the --ignore form), or {"ignore": [...]}',
    )
    .option('--sandbox-port <port>', "the sandbox's own port (--port is the proxy's; 0 = any free port)", parseInteger('--sandbox-port', 0, 65535), 0)
    .option(
      '--target-timeout <duration>',
      'how long the target may take to send its whole answer, headers and body, by wall time, before the client gets a 504 (default 30s)',
      durationOption('--target-timeout', 1, 600_000, { plainSeconds: true }),
    )
    .option(
      '--target-max-body <size>',
      'the largest answer held to compare (10mb, 512kb, bytes; default 10mb); a larger one is streamed to the client untouched and reported as too large to compare',
      sizeOption('--target-max-body', 1024, MAX_TARGET_MAX_BODY_BYTES),
    )
    .option('--json', 'print one JSON line with the proxy URL, the sandbox and control URLs, the target and the workspace, instead of the banner')
    .addHelpText(
      'after',
      "\nThe proxy listens on --port; the sandbox behind it on --sandbox-port. Data is kept in memory unless --data is given.\nThe client's key goes to the target only: it is never written to disk nor printed (docs/parity.md).\n\nExamples:\n  $ npx sandbox proxy --target https://api.example.com\n  $ npx sandbox proxy --target https://api.example.com --record ./my-catalog --json\n  $ npx sandbox parity --url http://127.0.0.1:4010",
    )
    // a proxy's sandbox is scratch space: no database file unless --data names one
    .action(async (opts) => {
      const { runProxy } = await import('../proxy.ts');
      await runProxy(opts);
    });
  withEnvOptions(proxy);
}
