import { InvalidArgumentError, type Command } from 'commander';
import { parseIgnoreFlag } from '../../parity/ignore.ts';
import type { IgnoreRule } from '../../parity/types.ts';
import { durationOption } from '../duration.ts';
import { withEnvOptions } from '../env-options.ts';
import { parseInteger } from './options.ts';
import { withServeOptions } from './start.ts';

/** `--ignore <rule>`, repeatable, in the flag form of src/parity/ignore.ts (docs/parity.md, "Ignore rules"). */
export function collectIgnoreRule(value: string, previous: IgnoreRule[] = []): IgnoreRule[] {
  try {
    return [...previous, parseIgnoreFlag(value)];
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** `sandbox proxy --target <url>`: the parity proxy of issue 40, with every option of `start`. */
export function proxyCommand(program: Command): void {
  const proxy = withServeOptions(program.command('proxy').description("sit in front of the real API: clients get its answers unchanged, each request is replayed in the sandbox and the differences reported (GET /__sandbox/parity)"), { port: 4010, inMemoryByDefault: true })
    .requiredOption('--target <url>', "the real API's base URL, e.g. https://api.example.com (the only place /v1 requests are forwarded)")
    .option('--workspace <id or name>', 'the fixture workspace the replays run in (default: the first sandbox-mode one)')
    .option('--record <dir>', 'write what the proxy learned (products, departures, people, ...) as a fixtures directory for `sandbox start --fixtures <dir>`')
    .option('--ignore <rule>', "a difference not to report: '[METHOD ]<path glob>[:<kind>[:<field glob>]]', e.g. 'GET /v1/products*:extra-field'; repeatable", collectIgnoreRule)
    .option('--ignore-file <file>', 'ignore rules from a JSON file: a list of rules (objects {path, kind?, field?} or strings in the --ignore form), or {"ignore": [...]}')
    .option('--sandbox-port <port>', "the sandbox's own port (--port is the proxy's; 0 = any free port)", parseInteger('--sandbox-port', 0, 65535), 0)
    .option('--target-timeout <duration>', "how long the target may take to send its whole answer, headers and body, by wall time, before the client gets a 504 (default 30s)", durationOption('--target-timeout', 1, 600_000, { plainSeconds: true }))
    .option('--json', 'print one JSON line with the proxy URL, the sandbox and control URLs, the target and the workspace, instead of the banner')
    .addHelpText('after', "\nThe proxy listens on --port; the sandbox behind it on --sandbox-port. Data is kept in memory unless --data is given.\nThe client's key goes to the target only: it is never written to disk nor printed (docs/parity.md).\n\nExamples:\n  $ npx sandbox proxy --target https://api.example.com\n  $ npx sandbox proxy --target https://api.example.com --record ./my-catalog --json\n  $ npx sandbox parity --url http://127.0.0.1:4010")
    // a proxy's sandbox is scratch space: no database file unless --data names one
    .action(async (opts) => {
      const { runProxy } = await import('../proxy.ts');
      await runProxy(opts);
    });
  withEnvOptions(proxy);
}
