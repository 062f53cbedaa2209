import type { McpServer, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorMessage } from '../cli/output.ts';

/**
 * One MCP tool over the control client. Results are JSON text; a failure
 * (the control plane's refusal, a bad id, no sandbox) is an MCP tool error
 * (`isError`) with the one-line message the CLI would print, never a crash.
 * A tool that changes the sandbox says so at the end of its description and
 * in its annotations, so that a client can ask the user first (docs/agents.md, "Safety").
 * Arguments are checked strictly: one the tool does not take is refused, by name.
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
  // strict: an argument the tool does not take (a misspelling, `workspaceId` for `workspace`) is an
  // error the assistant reads, not dropped in silence; the listed schema says additionalProperties: false
  const known = Object.keys(spec.input);
  const shape = z.strictObject(spec.input as z.ZodRawShape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `${name} takes no ${issue.keys.map((k) => `"${k}"`).join(', ')}; ${known.length > 0 ? `its arguments: ${known.join(', ')}` : 'it takes no arguments'}`
        : undefined,
  });
  const run: ToolCallback<typeof shape> = async (args) => {
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
