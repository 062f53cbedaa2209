import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { errorMessage } from '../cli/output.ts';

/**
 * One MCP tool over the control client. Results are JSON text; a failure
 * (the control plane's refusal, a bad id, no sandbox) is an MCP tool error
 * (`isError`) with the one-line message the CLI would print, never a crash.
 * A tool that changes the sandbox says so at the end of its description and
 * in its annotations, so that a client can ask the user first (issue 42).
 */
export interface ToolSpec<S extends z.ZodRawShape> {
  description: string;
  input: S;
  /** true: the tool changes the sandbox's state (data, clock, keys, faults, deliveries) */
  changes: boolean;
  run: (args: z.infer<z.ZodObject<S>>) => Promise<unknown>;
}

export const CHANGES_STATE = 'Changes the sandbox state.';

export function addTool<S extends z.ZodRawShape>(server: McpServer, name: string, spec: ToolSpec<S>): void {
  const description = spec.changes ? `${spec.description} ${CHANGES_STATE}` : `${spec.description} Read-only.`;
  const annotations = { readOnlyHint: !spec.changes, destructiveHint: spec.changes, openWorldHint: false };
  const shape: z.ZodRawShape = spec.input;
  const run: ToolCallback<z.ZodRawShape> = async (args) => {
    try {
      // the SDK has checked the arguments against the shape: they are its output
      return asJson(await spec.run(args as z.infer<z.ZodObject<S>>));
    } catch (err) {
      return { isError: true, content: [{ type: 'text', text: errorMessage(err) }] };
    }
  };
  server.registerTool(name, { description, inputSchema: shape, annotations }, run);
}

export function asJson(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value ?? null, null, 2) }] };
}
