import { Option, type Command } from 'commander';
import type { ControlClient, WorkspaceSummary } from '../control/client.ts';
import { errorMessage, printJson } from './output.ts';
import { say } from './format.ts';
import { pickWorkspace } from './lookup.ts';
import { DEFAULT_WORKSPACE_ENV, defaultWorkspace } from '../core/default-workspace.ts';

/**
 * What every command that talks to a running sandbox shares (docs/cli.md):
 * finding the sandbox (--url, else $SANDBOX_URL, which `sandbox exec` sets,
 * else the one `start --detach` started from this folder, else the default address), its control token, the control client, the
 * workspace named by --workspace, and printing either one JSON document
 * (--json) or a line for people. Light on purpose: command declarations
 * (./commands/) import it, and the client is loaded only when a command runs,
 * so `sandbox --help` loads neither the client nor zod.
 */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:4010';

/** Options every command that talks to a running sandbox shares. */
export interface ControlFlags {
  url: string;
  token?: string;
  workspace?: string;
}

/** Flags of every scripting command (`--url`, `--token`, `--json`). */
export interface ScriptFlags extends ControlFlags {
  json?: boolean;
}

/**
 * How every command finds a running sandbox: --url, then $SANDBOX_URL (set by `sandbox exec`), then
 * the one `start --detach` started from this folder (./folder-sandbox.ts), then the default.
 */
export const sandboxUrl = (): string => process.env.SANDBOX_URL || DEFAULT_SANDBOX_URL;

/** --token, else $SANDBOX_CONTROL_TOKEN (needed only when the sandbox listens on a non-loopback host). */
export const controlToken = (flags: { token?: string | undefined }): string | undefined => flags.token ?? process.env.SANDBOX_CONTROL_TOKEN;

/** --url and --token, as every command that talks to a running sandbox takes them. */
export const withUrlOptions = (command: Command): Command =>
  command
    .addOption(
      new Option('--url <url>', 'the running sandbox').default(
        sandboxUrl(),
        `$SANDBOX_URL, else the one \`start --detach\` started here, else ${DEFAULT_SANDBOX_URL}`,
      ),
    )
    .option('--token <token>', 'control token (default: $SANDBOX_CONTROL_TOKEN)');

/** The options of every scripting command: --url, --token, --json. */
export const withControlOptions = (command: Command): Command => withUrlOptions(command).option('--json', 'machine-readable output: JSON on stdout');

/**
 * --workspace: by id, name or part of a name (resolveWorkspace). `without`: what the command does
 * without it, when that is not the sandbox's default workspace ("every workspace").
 */
export const withWorkspace = (command: Command, without = "the sandbox's default workspace, or $SANDBOX_WORKSPACE"): Command =>
  command.option('--workspace <id|name>', `workspace: its id, name or part of its name, any case (default: ${without})`);

/** A scripting command (or a subcommand of a group); `--help` shows the examples. */
export function controlCommand(parent: Command, name: string, description: string, examples: string[], opts: { isDefault?: boolean } = {}): Command {
  return withControlOptions(parent.command(name, opts).description(description)).addHelpText(
    'after',
    `\nExample${examples.length > 1 ? 's' : ''}:\n${examples.map((e) => `  $ npx sandbox ${e}`).join('\n')}`,
  );
}

/** The control client of the sandbox the flags name (the client module is loaded here, on first use). */
export async function controlClient(flags: Pick<ControlFlags, 'url' | 'token'>): Promise<ControlClient> {
  const { ControlClient } = await import('../control/client.ts');
  const token = controlToken(flags);
  return new ControlClient({ url: flags.url, ...(token ? { token } : {}) });
}

/**
 * The one line the CLI prints for an error. A sandbox that does not answer (the client's
 * SandboxNotRunningError, told by name so this module need not load the client) gets the way out.
 */
export function errorLine(err: unknown): string {
  const message = errorMessage(err);
  if (err instanceof Error && err.name === 'SandboxNotRunningError') return `${message}; start one with \`sandbox start\` or pass --url`;
  return message;
}

/** Fails early with the "no sandbox is running" line, before work that would fail less clearly. */
export async function requireRunning(client: ControlClient): Promise<void> {
  await client.health();
}

/**
 * --workspace of every command (listen's and MCP's included): an id, a full name, or an unambiguous
 * part of a name, in any case (./lookup.ts). Without it, $SANDBOX_WORKSPACE when set, read the same
 * way; else the workspace the sandbox marks as its default (`default: true` in GET
 * /__sandbox/workspaces), and from a sandbox that marks none, the same rule it follows
 * (src/core/default-workspace.ts).
 */
export async function resolveWorkspace(client: ControlClient, given: string | undefined): Promise<WorkspaceSummary> {
  const workspaces = await client.workspaces();
  if (given !== undefined) return pickWorkspace(workspaces, given);
  const fromEnv = process.env[DEFAULT_WORKSPACE_ENV];
  if (fromEnv) return pickWorkspace(workspaces, fromEnv, `${DEFAULT_WORKSPACE_ENV}=${JSON.stringify(fromEnv)}`);
  return workspaces.find((w) => w.default) ?? defaultWorkspace(workspaces);
}

/** With --json, `value` as one JSON document on stdout; otherwise the line(s) for people. */
export function report<T>(flags: { json?: boolean | undefined }, value: T, human: (value: T) => string): void {
  if (flags.json) printJson(value);
  else say(human(value));
}
