import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { controlClient, controlToken, type ControlFlags } from './control.ts';

/**
 * `sandbox mcp [--url <u>] [--start]`: an MCP server over stdio
 * (docs/agents.md), for a coding assistant to drive and read a sandbox. It
 * attaches to the running sandbox the CLI finds as every command does, or
 * with --start runs one of its own in memory for as long as it runs. Stdout
 * carries MCP messages alone: every line for people goes to stderr.
 */
export interface McpFlags extends Pick<ControlFlags, 'url' | 'token'> {
  start?: boolean;
}

const log = (line: string) => process.stderr.write(`sandbox mcp: ${line}\n`);

/** The server talks to a control plane on this machine only (docs/agents.md, "Safety"). */
export function isLoopback(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    throw new Error(`--url takes a URL such as http://127.0.0.1:4010, not "${url}"`);
  }
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

export async function runMcp(flags: McpFlags): Promise<void> {
  let stop = async () => {};
  let url = flags.url;
  if (flags.start) {
    const { createSandbox } = await import('../sandbox.ts');
    const sandbox = await createSandbox({ port: 0, host: '127.0.0.1', storage: 'memory' });
    url = sandbox.url;
    stop = () => sandbox.stop().then(() => undefined);
    log(`started a sandbox in memory at ${url}`);
  } else if (!isLoopback(url)) {
    throw new Error(`sandbox mcp talks to a sandbox on this machine only (127.0.0.1, localhost, ::1), not ${url}`);
  }
  const client = await controlClient({ ...flags, url });
  if (!flags.start) {
    await client.health(); // "no sandbox is running at ...; start one with `sandbox start` or pass --url", before any MCP message
    log(`attached to the sandbox at ${url}`);
  }
  const { createMcpServer } = await import('../mcp/server.ts');
  const server = createMcpServer(client, controlToken(flags));
  const transport = new StdioServerTransport();
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await server.close().catch(() => {});
    await stop();
    process.exit(0);
  };
  // the client closes stdin (or ends the process) when it is done with the server
  transport.onclose = () => void close();
  process.stdin.once('end', () => void close());
  process.once('SIGINT', () => void close());
  process.once('SIGTERM', () => void close());
  await server.connect(transport);
}
