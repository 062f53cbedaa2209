import { InvalidArgumentError, type Command } from 'commander';
import { normaliseAllowedHost } from '../../core/host-guard.ts';
import { durationOption, parseDuration } from '../duration.ts';
import { withEnvOptions } from '../env-options.ts';
import { parseInteger } from './options.ts';

/** `sandbox start`, and the options of every command that runs a sandbox itself (start, exec). */
function parseControlToken(value: string): string {
  if (value.length < 8) throw new InvalidArgumentError('--control-token must be at least 8 characters');
  return value;
}

/** Repeatable: every value, checked as createSandbox checks `allowedHosts`. */
function collectAllowedHost(value: string, previous: string[] = []): string[] {
  if (normaliseAllowedHost(value) === null)
    throw new InvalidArgumentError(
      `--allowed-host takes a host name or IP address without scheme or port (sandbox.test, or .example.test for its subdomains too), not "${value}"`,
    );
  return [...previous, value];
}

function parseClockStart(value: string): string {
  if (Number.isNaN(Date.parse(value))) throw new InvalidArgumentError(`--clock-start takes an ISO 8601 time such as 2026-01-15T09:00:00Z, not "${value}"`);
  return value;
}

function parseFactor(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError('--webhook-retry-scale must be a number above 0 and at most 1');
  return n;
}

/** --stop-timeout: a duration (5s, 1500ms, plain milliseconds), 0 to 10 minutes, as milliseconds. */
function parseStopTimeout(value: string): number {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch {
    ms = Number.NaN;
  }
  if (!(ms >= 0 && ms <= 600_000)) throw new InvalidArgumentError(`--stop-timeout takes a duration from 0 to 10m, such as 5s or 1500ms, not "${value}"`);
  return ms;
}

export function withServeOptions(command: Command, defaults: { port: number; inMemoryByDefault?: boolean }): Command {
  return command
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', parseInteger('--port', 0, 65535), defaults.port)
    .option('--host <host>', 'interface to bind (loopback by default)', '127.0.0.1')
    .option(
      '--allowed-host <name>',
      'on loopback, also answer this Host (a proxy or container name; .name for its subdomains too); repeatable. Any other name gets a 403, against DNS rebinding',
      collectAllowedHost,
    )
    .option('--data <file>', 'database file', defaults.port === 0 || defaults.inMemoryByDefault ? undefined : '.sandbox/db.json')
    .option('--in-memory', 'keep everything in memory; nothing is written to disk')
    .option(
      '--recover',
      'when the journal does not continue the database file (an older copy was put in its place), set the journal aside beside it and start from the file',
    )
    .option('--fixtures <dir>', 'fixtures directory (default: the bundled fixtures)')
    .option('--seed <n>', 'faker seed for generated fixture data', parseInteger('--seed', 0, 2 ** 31 - 1))
    .option(
      '--default-workspace <name>',
      'the workspace (its name or id) CLI commands, MCP tools, the inspector and the dashboard use when not told (default: the first sandbox-mode fixture workspace)',
    )
    .option('--clock <mode>', 'real, or manual (time moves only via the control plane)', 'real')
    .option(
      '--clock-start <iso>',
      'where the clock starts (manual default 2026-01-15T09:00:00Z); on a data file that saved a later clock, the saved one wins',
      parseClockStart,
    )
    .option('--fresh-clock', 'start the clock as --clock/--clock-start say, setting aside the clock saved in the data file')
    .option('--no-rate-limits', 'compute and report rate limits but never enforce them (for load tests)')
    .option('--internal-key <key>', 'internal service key (or SANDBOX_INTERNAL_API_KEY)')
    .option('--control-token <token>', 'token for /__sandbox when bound to a non-loopback host (at least 8 characters)', parseControlToken)
    .option('--strict', 'refuse, with a 400, every request the sandbox would accept only by guessing (X-Sandbox-Warning)')
    .option('--strict-webhook-urls', 'refuse plain http:// webhook URLs even on loopback, as production does')
    .option('--webhook-retry-scale <factor>', 'shrink the webhook retry schedule (0 < factor <= 1) to watch retries live', parseFactor)
    .option(
      '--webhook-timeout <duration>',
      'deadline of one webhook delivery attempt: 10s, 2500ms (a plain number is seconds; default 10s)',
      durationOption('--webhook-timeout', 1, 300_000, { plainSeconds: true }),
    )
    .option(
      '--webhook-max-pending <n>',
      'pending webhook deliveries per subscription; past it the oldest expires (default 1000)',
      parseInteger('--webhook-max-pending', 1, 1_000_000),
    )
    .option('--suspension', 'suspend a workspace for 5 min after more than 20 429s within a minute (emulated; off by default)')
    .option(
      '--max-workspaces <n>',
      'created workspaces at most (POST /__sandbox/workspaces answers 409 past it; default 1000)',
      parseInteger('--max-workspaces', 1, 1_000_000),
    )
    .option(
      '--max-stream-clients <n>',
      'GET /__sandbox/stream clients at once (dashboards, inspector tabs, logs --follow; a new one answers 409 past it; default 100)',
      parseInteger('--max-stream-clients', 1, 100_000),
    )
    .option(
      '--request-capture-mb <n>',
      "the request log's captured headers and bodies, all together, in MB (the oldest leave first; default 8)",
      parseInteger('--request-capture-mb', 0, 4096),
    )
    .option(
      '--stop-timeout <duration>',
      'on SIGTERM or Ctrl+C, how long requests in flight may run on before they are answered 503 (e.g. 10s; default 3s)',
      parseStopTimeout,
    )
    .option(
      '--max-snapshots <n>',
      'named snapshots per workspace, and of the whole state (a save answers 409 past it; default 100)',
      parseInteger('--max-snapshots', 1, 1_000_000),
    )
    .option(
      '--max-snapshot-mib <n>',
      'MiB of JSON all named snapshots together may hold (a save answers 409 past it; default 128)',
      parseInteger('--max-snapshot-mib', 1, 1_000_000),
    );
}

export function startCommand(program: Command): void {
  const start = withServeOptions(program.command('start').description('serve the API and the control plane on this machine'), { port: 4010 })
    .option('--json', 'print one JSON line with the URL, workspaces and keys, instead of the banner')
    .option(
      '--detach',
      'start in the background: return once the sandbox answers, print the ready line, exit 0 while it keeps serving (`sandbox stop` stops it)',
    )
    .option(
      '--log <file>',
      'with --detach, where its output goes (default: <data>.log beside the data file, or a file in the temporary directory with --in-memory)',
    )
    .option(
      '--from-bundle <file>',
      "start on a failure bundle's state and clocks, in memory unless --data, the clock in the bundle's mode unless --clock (webhook subscriptions get fresh signing secrets)",
    )
    .option('--watch', 'reload fixtures, scenarios and hand edits of the database file while running')
    .option('--scenarios <dir>', 'scenarios directory to watch (default: the bundled scenarios)')
    .option('--dashboard', 'open the live dashboard in this terminal instead of the banner (q stops the sandbox)')
    .option('--open', 'open the browser inspector (/__sandbox/ui/) once serving ($SANDBOX_BROWSER, else xdg-open / open / start)')
    .option(
      '--flush-grace <duration>',
      'on SIGTERM or Ctrl+C, how long the flush and compaction may take after --stop-timeout before the process ends anyway (100ms to 10m; default 5s)',
      durationOption('--flush-grace', 100, 600_000),
    )
    .addHelpText(
      'after',
      '\nEvery option can also be set from the environment as SANDBOX_<OPTION> (SANDBOX_PORT, SANDBOX_NO_RATE_LIMITS=1, ...); a flag wins.\n\nExamples:\n  $ npx sandbox start\n  $ npx sandbox start --watch --fixtures ./my-fixtures\n  $ npx sandbox start --in-memory --port 0 --json\n  $ npx sandbox start --clock manual --seed 7\n  $ npx sandbox start --open\n  $ npx sandbox start --detach --port 4010 && npx sandbox stop --port 4010',
    )
    .action(async (opts, command: Command) => {
      if (opts.fromBundle) {
        // a bundle is a run to look into, not a database to write over: given no --data, memory; given no --clock, the bundle's
        if (command.getOptionValueSource('data') === 'default') opts.inMemory = true;
        if (command.getOptionValueSource('clock') === 'default') opts.clockFromBundle = true;
      }
      if (opts.detach) {
        const { runDetached } = await import('../detach.ts');
        return runDetached(opts);
      }
      const { runStart } = await import('../start.ts');
      await runStart(opts);
    });
  withEnvOptions(start);
}
