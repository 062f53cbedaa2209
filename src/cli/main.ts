import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { errorMessage, fail } from './output.ts';

/**
 * The CLI: each command file parses options, calls createSandbox or the
 * control client, and prints. Command modules are imported only when their
 * command runs, so `sandbox --help` and `sandbox start` load only what they use.
 */
export function parseInteger(name: string, min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
}

function parseControlToken(value: string): string {
  if (value.length < 8) throw new InvalidArgumentError('--control-token must be at least 8 characters');
  return value;
}

function parseFactor(value: string): number {
  const n = Number(value);
  if (!(n > 0 && n <= 1)) throw new InvalidArgumentError('--webhook-retry-scale must be a number above 0 and at most 1');
  return n;
}

/** The options shared by every command that runs a sandbox itself (start, exec). */
function withServeOptions(command: Command, defaults: { port: number }): Command {
  return command
    .option('-p, --port <port>', 'port to listen on (0 = any free port)', parseInteger('--port', 0, 65535), defaults.port)
    .option('--host <host>', 'interface to bind (loopback by default)', '127.0.0.1')
    .option('--data <file>', 'database file', defaults.port === 0 ? undefined : '.sandbox/db.json')
    .option('--in-memory', 'keep everything in memory; nothing is written to disk')
    .option('--fixtures <dir>', 'fixtures directory (default: the bundled fixtures)')
    .option('--seed <n>', 'faker seed for generated fixture data', parseInteger('--seed', 0, 2 ** 31 - 1))
    .option('--clock <mode>', 'real, or manual (time moves only via the control plane)', 'real')
    .option('--no-rate-limits', 'compute and report rate limits but never enforce them (for load tests)')
    .option('--internal-key <key>', 'internal service key (or SANDBOX_INTERNAL_API_KEY)')
    .option('--control-token <token>', 'token for /__sandbox when bound to a non-loopback host (at least 8 characters)', parseControlToken)
    .option('--strict', 'refuse, with a 400, every request the sandbox would accept only by guessing (X-Sandbox-Warning)')
    .option('--strict-webhook-urls', 'refuse plain http:// webhook URLs even on loopback, as production does')
    .option('--webhook-retry-scale <factor>', 'shrink the webhook retry schedule (0 < factor <= 1) to watch retries live', parseFactor)
    .option('--webhook-timeout <seconds>', 'deadline of one webhook delivery attempt (default 10)', parseInteger('--webhook-timeout', 1, 300))
    .option('--suspension', 'suspend a workspace for 5 min after more than 20 429s within a minute (emulated; off by default)');
}

const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';
/** How every command finds a running sandbox: --url, then $SANDBOX_URL (set by `sandbox exec`), then the default. */
const sandboxUrl = (): string => process.env.SANDBOX_URL || DEFAULT_SANDBOX_URL;
/** --url and --token, as every command that talks to a running sandbox takes them. */
const withUrlOptions = (command: Command): Command =>
  command
    .addOption(new Option('--url <url>', 'the running sandbox').default(sandboxUrl(), `$SANDBOX_URL, else ${DEFAULT_SANDBOX_URL}`))
    .option('--token <token>', 'control token (default: $SANDBOX_CONTROL_TOKEN)');

function parseProbability(value: string): number {
  const n = Number(value);
  if (!(n >= 0 && n <= 1) || value.trim() === '') throw new InvalidArgumentError('--probability must be a number from 0 to 1');
  return n;
}

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The options of every command that talks to a running sandbox: --url, --token, --json. */
function withControlOptions(command: Command): Command {
  return withUrlOptions(command).option('--json', 'machine-readable output: JSON on stdout');
}

/** A command (or subcommand of a group) that talks to a running sandbox; `--help` shows the examples. */
function control(parent: Command, name: string, description: string, examples: string[], opts: { isDefault?: boolean } = {}): Command {
  return withControlOptions(parent.command(name, opts).description(description))
    .addHelpText('after', `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => `  $ npx sandbox ${e}`).join('\n')}`);
}

/** A group of subcommands (`sandbox keys list|create|revoke`). */
const group = (program: Command, name: string, description: string, example: string): Command =>
  program.command(name).description(description).addHelpText('after', `\nExample:\n  $ npx sandbox ${example}`);

const withWorkspace = (command: Command): Command => command.option('--workspace <id|name>', 'workspace (default: the first one)');

export function buildProgram(): Command {
  const program = new Command('sandbox')
    .description('travel-commerce-sandbox: a local, full-fidelity stand-in for the Travel Commerce API')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'sandbox: ')) })
    // usage errors are thrown, not exited on, so main() can give them exit code 2 (docs/cli.md, "Exit codes")
    .exitOverride()
    .option('--no-color', 'print without colours, as NO_COLOR=1 does (any command)')
    .hook('preAction', (root) => {
      if (root.opts().color === false) process.env.NO_COLOR = '1';
    })
    .version(packageJson.version, '-V, --version', 'print the version');

  withServeOptions(program.command('start').description('serve the API and the control plane on this machine'), { port: 4010 })
    .option('--json', 'print one JSON line with the URL, workspaces and keys, instead of the banner')
    .option('--watch', 'reload fixtures, scenarios and hand edits of the database file while running')
    .option('--scenarios <dir>', 'scenarios directory to watch (default: the bundled scenarios)')
    .option('--dashboard', 'open the live dashboard in this terminal instead of the banner (q stops the sandbox)')
    .addHelpText('after', '\nExamples:\n  $ npx sandbox start\n  $ npx sandbox start --watch --fixtures ./my-fixtures\n  $ npx sandbox start --in-memory --port 0 --json\n  $ npx sandbox start --clock manual --seed 7')
    .action(async (opts) => {
      const { runStart } = await import('./start.ts');
      await runStart(opts);
    });

  program.command('openapi').description('print (or write) the OpenAPI document of the API and the control plane, no server needed')
    .option('--out <file>', 'write it to a file instead of stdout')
    .addHelpText('after', '\nExamples:\n  $ npx sandbox openapi > openapi.json\n  $ npx sandbox openapi --out openapi.json && npx openapi-typescript openapi.json -o api.d.ts')
    .action(async (opts) => (await import('./openapi.ts')).runOpenApi(opts));

  withServeOptions(program.command('exec').description('start a sandbox (in memory, on a free port), run a command against it, stop it, exit with its code'), { port: 0 })
    .argument('<command...>', 'the command to run, after --')
    .option('--key <which>', 'which fixture key SANDBOX_API_KEY holds: sandbox or live', 'sandbox')
    .option('--workers <n>', 'also create n workspaces and export their keys as SANDBOX_API_KEY_1..n', parseInteger('--workers', 1, 256))
    .addHelpText('after', '\nThe command gets SANDBOX_URL, SANDBOX_API_KEY, SANDBOX_CONTROL_URL and SANDBOX_WORKSPACE_ID (with --workers n, also SANDBOX_API_KEY_1..n and SANDBOX_WORKSPACE_ID_1..n).\n\nExamples:\n  $ npx sandbox exec -- npm test\n  $ npx sandbox exec --no-rate-limits -- node -e "fetch(process.env.SANDBOX_URL + \'/__sandbox/health\')"')
    .action(async (command: string[], opts) => {
      const { runExec } = await import('./exec.ts');
      await runExec(command, opts);
    });

  withUrlOptions(program.command('listen')).description('deliver webhooks from a running sandbox to a local URL and print each delivery')
    .requiredOption('--forward-to <url>', 'the receiver, e.g. http://localhost:3000/webhooks')
    .option('--events <patterns>', 'comma-separated event names or patterns', '*')
    .option('--workspace <id|name>', 'workspace (default: the first one)')
    .option('--print-secret', 'print only the signing secret and exit; changes nothing (a first call creates the subscription paused)')
    .option('--json', 'one JSON line per delivery attempt on stdout (the banner goes to stderr)')
    .addHelpText('after', "\nCtrl+C stops listening and pauses the subscription, so nothing retries into a closed port.\n\nExamples:\n  $ npx sandbox listen --forward-to http://localhost:3000/webhooks --events 'booking.*'\n  $ export WEBHOOK_SECRET=$(npx sandbox listen --forward-to http://localhost:3000/webhooks --print-secret)")
    .action(async (opts) => {
      const { runListen } = await import('./listen.ts');
      await runListen(opts);
    });

  withUrlOptions(program.command('trigger')).description('emit a webhook event in a running sandbox')
    .argument('<event-type>', 'a catalogue event, e.g. booking.created')
    .option('--workspace <id|name>', 'workspace (default: the first one)')
    .option('--data <json>', 'the event data as a JSON object (default: made from the workspace)')
    .option('--override <key=value>', 'replace a field of the data, by dotted path (repeatable); the value is JSON or a string', collect)
    .option('--add <key=value>', 'add a field to the data, by dotted path (repeatable)', collect)
    .option('--json', 'print the event and delivery ids as one JSON line')
    .addHelpText('after', "\nExamples:\n  $ npx sandbox trigger booking.created\n  $ npx sandbox trigger booking.created --override status=cancelled --add metadata.source=cli")
    .action(async (type: string, opts) => {
      const { runTrigger } = await import('./trigger.ts');
      await runTrigger(type, opts);
    });

  withUrlOptions(program.command('dashboard').description('a live terminal dashboard of a running sandbox: requests, webhooks, rate limits, events'))
    .addHelpText('after', '\nKeys: Tab panels, arrows or j/k move, Enter details, / filter, p pause, r replay, c clear, ? help, q quit.\nWhen stdout is not a terminal it prints one line per request, delivery and event.\n\nExamples:\n  $ npx sandbox dashboard\n  $ npx sandbox dashboard --url http://127.0.0.1:4011\n  $ npx sandbox start --dashboard')
    .action(async (opts) => {
      const { runDashboard } = await import('./dashboard.ts');
      await runDashboard(opts);
    });

  const scenario = program.command('scenario').description('list and run scripted scenarios (scenarios/*.json)');
  scenario.command('list').description('list the scenarios').option('--dir <dir>', 'scenarios directory').option('--json', 'machine output')
    .action(async (opts) => (await import('./scenario.ts')).runScenarioList(opts));
  scenario.command('run').description('run one scenario; exits 1 when a step fails')
    .argument('<name|file>', 'a scenario name from the directory, or a path to a .json file')
    .option('--url <url>', 'a running sandbox (default: a fresh in-memory one for the run, with the clock the scenario asks for; $SANDBOX_URL is not read)')
    .option('--token <token>', 'control token (default: $SANDBOX_CONTROL_TOKEN)')
    .option('--dir <dir>', 'scenarios directory')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', '\nExamples:\n  $ npx sandbox scenario run sandbox-rate-limit\n  $ npx sandbox scenario run ./my-case.json --url http://127.0.0.1:4010')
    .action(async (name: string, opts) => (await import('./scenario.ts')).runScenarioRun(name, opts));

  addScriptingCommands(program);
  return program;
}

/** The scripting commands: each a thin file over the control client (docs/cli.md). */
function addScriptingCommands(program: Command): void {
  const keys = group(program, 'keys', 'workspace API keys of a running sandbox', 'keys create --workspace "Aurora Tours" --scopes products:read');
  withWorkspace(control(keys, 'list', 'list the keys of every workspace (or of one)', ['keys list --workspace "Aurora Tours"'], { isDefault: true }))
    .action(async (opts) => (await import('./keys.ts')).runKeysList(opts));
  withWorkspace(control(keys, 'create', 'create a workspace key; the key is printed once', ['keys create --name CI --scopes products:read,bookings:read']))
    .option('--name <name>', 'a label for the key').option('--scopes <list>', 'comma-separated scopes (default: full access)')
    .action(async (opts) => (await import('./keys.ts')).runKeysCreate(opts));
  control(keys, 'revoke', 'revoke a workspace key (the next request with it gets 401)', ['keys revoke wkey_...']).argument('<id>', 'key id')
    .action(async (id: string, opts) => (await import('./keys.ts')).runKeysRevoke(id, opts));

  const orgKeys = group(program, 'org-keys', 'partner organization keys of a running sandbox', 'org-keys create --scopes products:read --rps 2 --rpm 60 --burst 5');
  withWorkspace(control(orgKeys, 'list', 'list organization keys (prefixes only)', ['org-keys list --json'], { isDefault: true }))
    .action(async (opts) => (await import('./org-keys.ts')).runOrgKeysList(opts));
  withWorkspace(control(orgKeys, 'create', 'issue an organization key; the key is printed once', ['org-keys create --org nordic-trails-agency --scopes products:read --products prod_...']))
    .option('--org <id|slug|name>', 'organization (default: the first of the workspace)').option('--scopes <list>', 'comma-separated scopes (default: none)')
    .option('--products <ids>', 'comma-separated product ids the key is limited to (default: all)').option('--expires-at <iso>', 'expiry, ISO 8601')
    .option('--rps <n>', 'requests per second', parseInteger('--rps', 1, 10_000)).option('--rpm <n>', 'requests per minute', parseInteger('--rpm', 1, 600_000))
    .option('--burst <n>', 'burst size', parseInteger('--burst', 1, 10_000))
    .action(async (opts) => (await import('./org-keys.ts')).runOrgKeysCreate(opts));
  control(orgKeys, 'revoke', 'revoke an organization key', ['org-keys revoke orgkey_...']).argument('<id>', 'key id')
    .action(async (id: string, opts) => (await import('./org-keys.ts')).runOrgKeysRevoke(id, opts));

  const clock = group(program, 'clock', 'show or move the sandbox clock (due timers run as it moves)', 'clock advance 2h');
  control(clock, 'show', 'show the sandbox time', ['clock'], { isDefault: true }).action(async (opts) => (await import('./clock.ts')).runClockShow(opts));
  control(clock, 'advance', 'move the clock forward', ['clock advance 90s', 'clock advance 1d']).argument('<duration>', '90s, 5m, 2h, 1d, 1500ms or plain ms')
    .action(async (duration: string, opts) => (await import('./clock.ts')).runClockAdvance(duration, opts));
  control(clock, 'set', 'jump to a time (backwards only on a manual clock)', ['clock set 2026-12-24T09:00:00Z']).argument('<iso>', 'ISO 8601 time with offset')
    .action(async (at: string, opts) => (await import('./clock.ts')).runClockSet(at, opts));

  const fault = group(program, 'fault', 'inject failures into /v1 requests', "fault add --path '/v1/bookings/**' --status 503 --times 3");
  control(fault, 'add', 'add a fault rule (status, latency or drop); without --workspace it matches every workspace', ["fault add --method POST --path /v1/bookings --status 500 --body '{\"error\":\"boom\"}'", 'fault add --latency 3000 --probability 0.2 --seed 7'])
    .option('--workspace <id|name>', 'only requests of this workspace (default: every workspace)')
    .option('--method <method>', 'HTTP method').option('--path <glob>', 'path pattern: * within a segment, ** across')
    .option('--key <id|prefix>', 'only requests with this key').option('--status <code>', 'answer this status', parseInteger('--status', 100, 599))
    .option('--body <json>', 'answer this body (JSON)').option('--header <name:value>', 'answer this header (repeatable)', collect)
    .option('--latency <ms>', 'wait this long first', parseInteger('--latency', 0, 120_000)).option('--drop', 'drop the connection')
    .option('--times <n>', 'fire on the next n matches (default 1)', parseInteger('--times', 1, 1_000_000))
    .option('--probability <p>', 'fire on each match with this probability, until cleared', parseProbability)
    .option('--seed <n>', 'seed of the probability draws', parseInteger('--seed', 0, 2 ** 31 - 1))
    .action(async (opts) => (await import('./fault.ts')).runFaultAdd(opts));
  control(fault, 'list', 'list the fault rules', ['fault list'], { isDefault: true }).action(async (opts) => (await import('./fault.ts')).runFaultList(opts));
  control(fault, 'clear', 'remove one fault rule, or all', ['fault clear', 'fault clear fault_1a2b3c4d']).argument('[id]', 'rule id (default: all)')
    .action(async (id: string | undefined, opts) => (await import('./fault.ts')).runFaultClear(id, opts));

  const rate = group(program, 'ratelimit', 'inspect and provoke rate limits', 'ratelimit exhaust --workspace "Aurora Tours"');
  withWorkspace(control(rate, 'show', 'show every rate-limit bucket (or one workspace\'s)', ['ratelimit show', 'ratelimit show --workspace wksp_...'], { isDefault: true })).action(async (opts) => (await import('./ratelimit.ts')).runRateLimitShow(opts));
  withWorkspace(control(rate, 'exhaust', 'empty a bucket: the next request gets 429', ['ratelimit exhaust --key orgkey_...'])).option('--key <id>', 'a key id instead of a workspace')
    .action(async (opts) => (await import('./ratelimit.ts')).runRateLimitExhaust(opts));
  withWorkspace(control(rate, 'mode', "switch a workspace's limits", ['ratelimit mode sandbox --workspace "Aurora Tours"'])).argument('<mode>', 'live or sandbox')
    .action(async (mode: string, opts) => (await import('./ratelimit.ts')).runRateLimitMode(mode, opts));

  const snapshot = group(program, 'snapshot', 'save, restore, export and import the whole state', 'snapshot save clean && npx sandbox snapshot restore clean');
  control(snapshot, 'save', 'keep the state in memory under a name', ['snapshot save before-test']).argument('<name>', '1-64 letters, digits, _ . -')
    .action(async (name: string, opts) => (await import('./state.ts')).runSnapshotSave(name, opts));
  control(snapshot, 'restore', 'go back to a saved snapshot', ['snapshot restore before-test']).argument('<name>', 'snapshot name')
    .action(async (name: string, opts) => (await import('./state.ts')).runSnapshotRestore(name, opts));
  control(snapshot, 'list', 'list saved snapshots', ['snapshot list'], { isDefault: true }).action(async (opts) => (await import('./state.ts')).runSnapshotList(opts));
  control(snapshot, 'export', 'write the whole state as JSON (a valid --data file)', ['snapshot export state.json', 'snapshot export | gzip > state.json.gz']).argument('[file]', 'file (default: stdout)')
    .action(async (file: string | undefined, opts) => (await import('./state.ts')).runSnapshotExport(file, opts));
  control(snapshot, 'import', 'replace the whole state with an exported file', ['snapshot import state.json']).argument('<file>', 'an export or a database file')
    .action(async (file: string, opts) => (await import('./state.ts')).runSnapshotImport(file, opts));

  const workspace = group(program, 'workspace', 'workspaces on demand, one per parallel test worker', 'workspace create --json');
  control(workspace, 'create', 'create a workspace from a fixture workspace; its keys are printed once', ['workspace create', 'workspace create --template "Aurora Tours" --name worker-1 --json'])
    .option('--template <id|name>', 'fixture workspace to copy (default: the sandbox-mode one)').option('--mode <mode>', 'live or sandbox (default: the template\'s)')
    .option('--name <name>', 'a name for it')
    .action(async (opts) => (await import('./workspace.ts')).runWorkspaceCreate(opts));
  control(workspace, 'list', 'list workspaces; created ones are marked', ['workspace list --json'], { isDefault: true })
    .action(async (opts) => (await import('./workspace.ts')).runWorkspaceList(opts));
  control(workspace, 'delete', 'delete a created workspace and everything in it', ['workspace delete wksp_...']).argument('<id|name>', 'workspace')
    .action(async (given: string, opts) => (await import('./workspace.ts')).runWorkspaceDelete(given, opts));
  control(workspace, 'reset', 'put one workspace back to its template', ['workspace reset wksp_...']).argument('<id|name>', 'workspace')
    .action(async (given: string, opts) => (await import('./workspace.ts')).runWorkspaceReset(given, opts));
  control(workspace, 'advance', "move one workspace's clock alone", ['workspace advance wksp_... 10m']).argument('<id|name>', 'workspace').argument('<duration>', '90s, 5m, 2h, 1d')
    .action(async (given: string, duration: string, opts) => (await import('./workspace.ts')).runWorkspaceAdvance(given, duration, opts));

  control(program, 'reset', 'put a running sandbox back to its fixtures', ['reset']).action(async (opts) => (await import('./state.ts')).runReset(opts));
  withWorkspace(control(program, 'seed', 'add generated products, departures, customers and bookings', ['seed --products 50 --bookings 500 --seed 7']))
    .option('--products <n>', 'products to add (default 10, or 0 with --bookings)', parseInteger('--products', 0, 5000))
    .option('--bookings <n>', 'bookings to add (default 50, or 0 with --products)', parseInteger('--bookings', 0, 50_000))
    .option('--seed <n>', 'faker seed (default: the sandbox seed)', parseInteger('--seed', 0, 2 ** 31 - 1))
    .action(async (opts) => (await import('./seed.ts')).runSeed(opts));
  control(program, 'logs', 'print the requests served on /v1', ['logs --limit 20', 'logs --follow --status 4xx', 'logs --method POST --path /v1/bookings'])
    .option('-f, --follow', 'keep printing requests as they happen, until Ctrl+C').option('--limit <n>', 'how many recent requests', parseInteger('--limit', 1, 1000))
    .option('--method <method>', 'only this HTTP method').option('--status <code>', 'only this status or class: 404, 4xx, 5')
    .option('--path <text>', 'only paths containing this text (* matches within a segment, ** across)')
    .action(async (opts) => (await import('./logs.ts')).runLogs(opts));
  const events = group(program, 'events', 'webhook deliveries of a running sandbox', 'events resend dlv_...');
  control(events, 'resend', 'send a delivery again now, with the same webhook-id (not counted against max_retries)', ['events resend dlv_...']).argument('<delivery-id>', 'delivery id (from listen, the dashboard or GET /__sandbox/deliveries)')
    .action(async (id: string, opts) => (await import('./events.ts')).runEventsResend(id, opts));
  control(program, 'otp', 'show the latest verification codes the sandbox sent', ['otp +15551234567', 'otp ada@example.com --json']).argument('[target]', 'phone (E.164) or e-mail')
    .option('--channel <channel>', 'sms or email').option('--limit <n>', 'how many codes', parseInteger('--limit', 1, 100))
    .action(async (target: string | undefined, opts) => (await import('./otp.ts')).runOtp(target, opts));
}

/**
 * `sandbox keys bogus`: a group with a default subcommand (`keys` = `keys list`)
 * would hand "bogus" to that default as an excess argument ("too many
 * arguments for 'list'"); name it as the unknown command it is instead.
 */
export function unknownSubcommand(program: Command, args: readonly string[]): string | null {
  const [name, sub] = args;
  const group = program.commands.find((c) => c.name() === name || c.aliases().includes(name ?? ''));
  if (!group || group.commands.length === 0 || sub === undefined || sub.startsWith('-')) return null;
  if (group.commands.some((c) => c.name() === sub || c.aliases().includes(sub))) return null;
  return `unknown command "${name} ${sub}"; ${name} has: ${group.commands.map((c) => c.name()).join(', ')} (run \`sandbox ${name} --help\`)`;
}

/** A command line of the wrong form exits 2; a well-formed one with a bad value exits 1, as any other error. */
const USAGE_ERRORS = new Set(['commander.unknownOption', 'commander.unknownCommand', 'commander.missingArgument', 'commander.optionMissingArgument', 'commander.missingMandatoryOptionValue', 'commander.excessArguments', 'commander.conflictingOption']);

export async function main(argv: string[]): Promise<void> {
  // `sandbox openapi | head`: a reader that stops early is not an error
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
  });
  try {
    const program = buildProgram();
    const unknown = unknownSubcommand(program, argv.slice(2));
    if (unknown) fail(unknown);
    await program.parseAsync(argv);
  } catch (err) {
    // commander has printed its one line already
    if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : USAGE_ERRORS.has(err.code) ? 2 : 1);
    fail(errorMessage(err));
  }
}
