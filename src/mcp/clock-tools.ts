import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ControlClient, WorkspaceSummary } from '../control/client.ts';
import { describeToNext } from '../cli/clock-next.ts';
import { parseAdvance } from '../cli/duration.ts';
import { addTool } from './tool.ts';

/**
 * The clock's tools of `sandbox mcp` (docs/agents.md). advance_clock without `workspace` moves the
 * sandbox clock, as `sandbox clock advance` does without --workspace; with `toNext` it answers what
 * `sandbox clock advance --to-next --json` does, plus `summary`, the line the CLI prints for people.
 */
export function registerClockTools(server: McpServer, client: ControlClient, workspaceOf: (given: string) => Promise<WorkspaceSummary>): void {
  addTool(server, 'advance_clock', {
    description:
      "Move the sandbox clock forward (due timers run: webhook retries, deletion jobs, holds expiring). With workspace, that workspace's clock alone. With toNext, to the next due timer: answers what ran, where the clock is now and what is due next.",
    input: {
      duration: z.string().optional().describe('90s, 5m, 2h, 1d, 1h30m or plain milliseconds'),
      toNext: z.boolean().optional().describe('to the next due timer instead, answering what ran'),
      workspace: z.string().optional().describe("workspace id, name or part of its name; without it, the sandbox clock (every workspace's)"),
    },
    changes: true,
    run: async ({ duration, toNext, workspace: given }) => {
      const workspace = given === undefined ? undefined : await workspaceOf(given);
      if (toNext) {
        if (duration !== undefined) throw new Error('advance_clock takes a duration or toNext: true, not both');
        const moved = await client.advanceClockToNext(workspace?.id);
        return { ...moved, summary: describeToNext(moved, workspace?.name) };
      }
      if (duration === undefined) throw new Error('advance_clock needs a duration (2h, 1d) or toNext: true');
      const ms = parseAdvance(duration, 'advance_clock');
      return workspace === undefined ? client.advanceClock(ms) : client.advanceWorkspaceClock(workspace.id, ms);
    },
  });

  addTool(server, 'set_clock', {
    description: 'Set the sandbox clock to a time (backwards only on a manual clock).',
    input: { at: z.string().describe('ISO 8601 time with offset: 2026-12-24T09:00:00Z') },
    changes: true,
    run: async ({ at }) => client.setClock(at),
  });
}
