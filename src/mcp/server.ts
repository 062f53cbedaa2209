import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { ControlClient } from '../control/client.ts';
import { registerResources } from './resources.ts';
import { registerTools } from './tools.ts';

/** The MCP server of `sandbox mcp` over one sandbox's control client (docs/agents.md). */
export function createMcpServer(client: ControlClient): McpServer {
  const server = new McpServer(
    { name: 'travel-commerce-sandbox', version: packageJson.version },
    { instructions: `Drives and reads the travel-commerce sandbox at ${client.baseUrl}: why a request was refused (list_requests, explain_request), the records it holds, its clock, faults and webhooks. Tools that change state say so.` },
  );
  registerTools(server, client);
  registerResources(server, client);
  return server;
}

/**
 * Keeps one stream client open for as long as the server runs, so the sandbox
 * captures every request's headers and bodies for explain_request (it keeps
 * them only while a stream client watches). Resolves once the stream is open
 * (its hello came), so a request made after the server started is captured.
 * Best effort: without it, explain_request still answers the status, reason and a curl.
 */
export async function watchForCapture(client: ControlClient, signal: AbortSignal, log: (line: string) => void): Promise<void> {
  const events = client.stream(signal, { detail: 'none', events: 'request' });
  const closed = (err: unknown) => {
    if (!signal.aborted) log(`the request stream closed (${err instanceof Error ? err.message : String(err)}); explain_request may lack headers and bodies`);
  };
  try {
    await events.next(); // hello: the sandbox captures from now on
  } catch (err) {
    closed(err);
    return;
  }
  void (async () => {
    try {
      for await (const _event of events) {
        // nothing to read: the sandbox captures while this stream is open
      }
    } catch (err) {
      closed(err);
    }
  })();
}
