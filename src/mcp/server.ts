import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import packageJson from '../../package.json' with { type: 'json' };
import type { ControlClient } from '../control/client.ts';
import { registerResources } from './resources.ts';
import { registerTools } from './tools.ts';

/** The MCP server of `sandbox mcp` over one sandbox's control client (docs/agents.md). */
export function createMcpServer(client: ControlClient, token?: string): McpServer {
  const server = new McpServer(
    { name: 'travel-commerce-sandbox', version: packageJson.version },
    {
      instructions: `Drives and reads the travel-commerce sandbox at ${client.baseUrl}: why a request was refused (list_requests, explain_request), the records it holds, its clock, faults and webhooks. Tools that change state say so.`,
    },
  );
  registerTools(server, client, token);
  registerResources(server, client);
  return server;
}
