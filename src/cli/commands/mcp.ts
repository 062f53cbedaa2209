import type { Command } from 'commander';
import { withUrlOptions } from '../control.ts';

/** `sandbox mcp`: an MCP server over stdio for coding assistants (docs/agents.md). */
export function mcpCommand(program: Command): void {
  withUrlOptions(program.command('mcp').description('an MCP server over stdio, so a coding assistant can drive and read the sandbox (docs/agents.md)'))
    .option('--start', 'start a sandbox in memory for as long as the server runs, instead of attaching to a running one')
    .addHelpText('after', '\nExamples:\n  $ claude mcp add sandbox -- npx sandbox mcp\n  $ npx sandbox mcp --start')
    .action(async (opts) => (await import('../mcp.ts')).runMcp(opts));
}
