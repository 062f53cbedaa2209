import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { basename } from 'node:path';
import { z } from 'zod';
import { DEFAULT_SCENARIOS_DIR } from '../config.ts';
import { CONTROL_ROUTES, type ControlClient, type DeliverySummary, type RequestLogLine, type WorkspaceSummary } from '../control/client.ts';
import { resolveWorkspace } from '../cli/control.ts';
import { findWorkspaceKey } from '../cli/keys.ts';
import { pickWorkspace } from '../cli/lookup.ts';
import { requestFilter } from '../cli/logs.ts';
import { findScenarioFile, listScenarioFiles, loadScenarioFile, validateScenarioFile } from '../scenarios/load.ts';
import { countSteps, runScenario } from '../scenarios/runner.ts';
import { formatProblem } from '../scenarios/validate.ts';
import { curlCommand } from '../inspector/requests/curl.ts';
import { DELIVERY_STATUSES } from '../webhooks/outbox.ts';
import { addTool } from './tool.ts';
import { registerClockTools } from './clock-tools.ts';

/**
 * The tools of `sandbox mcp` (docs/agents.md, "Tools"): each a thin call of the control
 * client, with the CLI's own helpers for what the CLI already decides (a
 * workspace by name, a duration, a key by prefix, the request filters, the
 * inspector's curl). Keys are shown by their listing prefix, except the ones a
 * tool has just created; webhook secrets are never shown.
 */
const LOG_CAPACITY = 1000;

const workspace = z.string().optional().describe("workspace id, name or part of its name (default: the sandbox's default workspace)");

/** A workspace listing without its whole keys: prefixes only. */
const withoutKeys = (w: WorkspaceSummary) => ({ ...w, keys: w.keys.map(({ key: _whole, ...rest }) => rest) });

/** A delivery without its payload, sent once a delivery and once an attempt: the statuses are what an agent reads. */
const withoutBodies = ({ body: _body, attempts, ...delivery }: DeliverySummary) => ({
  ...delivery,
  attempts: attempts.map(({ request: { body: _sent, ...request }, ...attempt }) => ({ ...attempt, request })),
});

/** A log entry for a listing: what happened, without its captured headers and bodies. */
const summary = ({ detail: _detail, ...entry }: RequestLogLine) => entry;

export function registerTools(server: McpServer, client: ControlClient, token?: string): void {
  const workspaceOf = (given: string | undefined) => resolveWorkspace(client, given);

  addTool(server, 'list_workspaces', {
    description:
      'The workspaces (ids, names, live or sandbox mode, rate-limit mode) and their keys by listing prefix; `default: true` marks the one the tools use without a workspace argument.',
    input: {},
    changes: false,
    run: async () => (await client.workspaces()).map(withoutKeys),
  });

  addTool(server, 'list_requests', {
    description:
      'The requests the sandbox served on /v1, newest first: method, path, status, the refusal reason (X-Sandbox-Reason) and warnings. Use explain_request with a requestId for one request in full.',
    input: {
      status: z.string().optional().describe('a status or a class: 401, 4xx, 5'),
      path: z.string().optional().describe('a piece of the path, or a glob with * and ** (/v1/bookings/*)'),
      method: z.string().optional(),
      since: z.string().optional().describe('ISO 8601 time: only requests at or after it (sandbox clock)'),
      limit: z.number().int().min(1).max(LOG_CAPACITY).optional().describe('at most this many (default 20)'),
    },
    changes: false,
    run: async ({ status, path, method, since, limit }) => {
      const matches = requestFilter({ status, path, method });
      const from = since === undefined ? null : Date.parse(since);
      if (from !== null && Number.isNaN(from)) throw new Error(`since takes an ISO 8601 time, not "${since}"`);
      const all = await client.requests(LOG_CAPACITY);
      return all
        .filter((e) => matches(e) && (from === null || Date.parse(e.at) >= from))
        .slice(0, limit ?? 20)
        .map(summary);
    },
  });

  addTool(server, 'explain_request', {
    description:
      "Why the sandbox answered one request as it did: its status, the refusal reason, the warnings, its headers and bodies as captured (Authorization shows the key's prefix only), and a curl that sends it again (the key from $SANDBOX_KEY). Without requestId: the newest refused request.",
    input: { requestId: z.string().optional().describe('from list_requests or the X-Request-Id header of the answer') },
    changes: false,
    run: async ({ requestId }) => {
      const id = requestId ?? (await client.requests(LOG_CAPACITY)).find((e) => e.status >= 400 || e.status === 0)?.requestId;
      if (id === undefined) throw new Error('no refused request in the log; pass a requestId from list_requests');
      const entry = await client.request(CONTROL_ROUTES.request, { params: { requestId: id } });
      return {
        ...summary(entry),
        reason: entry.reason ?? null,
        warnings: entry.warnings ?? [],
        // the sandbox keeps the newest 200 requests' headers and bodies (src/http/request-capture.ts)
        captured: entry.detail ?? 'no longer kept: the sandbox keeps the headers and bodies of the newest 200 requests',
        curl: curlCommand(entry, client.baseUrl, null),
      };
    },
  });

  addTool(server, 'list_collections', {
    description: 'The collections of a workspace (bookings, people, products, ...) with their record counts.',
    input: { workspace },
    changes: false,
    run: async (args) => client.dataCollections((await workspaceOf(args.workspace)).id),
  });

  addTool(server, 'query_records', {
    description: 'A page of the records of one collection of a workspace, by text search (q) or exact id; secrets redacted.',
    input: {
      collection: z.string().describe('as list_collections names it: bookings, people, ...'),
      workspace,
      q: z.string().optional().describe("case-insensitive text search over each record's JSON"),
      id: z.string().optional().describe('exact record id'),
      order: z.enum(['stored', 'newest']).optional().describe('newest: the newest first (a record just made is on the first page)'),
      limit: z.number().int().min(1).max(500).optional().describe('rows a page (default 20)'),
      offset: z.number().int().min(0).optional(),
    },
    changes: false,
    run: async ({ collection, workspace: given, limit, ...query }) =>
      client.dataPage((await workspaceOf(given)).id, collection, { limit: limit ?? 20, ...query }),
  });

  addTool(server, 'get_record', {
    description: 'One record, the ids it holds (links) and the records of other collections that point to it (related); secrets redacted.',
    input: { collection: z.string(), id: z.string(), workspace },
    changes: false,
    run: async ({ collection, id, workspace: given }) => client.dataRecord((await workspaceOf(given)).id, collection, id),
  });

  registerClockTools(server, client, workspaceOf);

  addTool(server, 'reset', {
    description: 'Reset the whole sandbox to its fixtures, or with workspace, that workspace alone. Loses every change since the start.',
    input: { workspace: z.string().optional().describe('workspace id, name or part of its name; without it, the whole sandbox') },
    changes: true,
    run: async ({ workspace: given }) => (given === undefined ? client.reset() : client.resetWorkspace((await workspaceOf(given)).id)),
  });

  addTool(server, 'snapshot', {
    description: 'Save the whole state under a name, to restore later.',
    input: { name: z.string().min(1) },
    changes: true,
    run: async ({ name }) => client.saveSnapshot(name),
  });

  addTool(server, 'restore', {
    description: 'Replace the whole state with a saved snapshot. Loses every change since it was taken.',
    input: { name: z.string().min(1) },
    changes: true,
    run: async ({ name }) => client.restoreSnapshot(name),
  });

  addTool(server, 'create_workspace', {
    description: 'Create an isolated workspace from a fixture workspace; answers its keys whole, this once.',
    input: {
      name: z.string().min(1).max(100).optional(),
      template: z.string().optional().describe("the fixture workspace to copy: its id, name or part of its name (default: the sandbox's default workspace)"),
      mode: z.enum(['live', 'sandbox']).optional(),
      rateLimits: z.enum(['enforce', 'report']).optional().describe('enforce: 429 as documented; report: counted, never refused'),
    },
    changes: true,
    run: async ({ template, ...body }) => {
      // as `sandbox workspace create --template` reads it: among the fixture workspaces
      const fixtures = template === undefined ? [] : (await client.workspaces()).filter((w) => !w.created);
      return client.createWorkspace({
        ...body,
        ...(template === undefined ? {} : { template: pickWorkspace(fixtures, template, `template "${template}"`).id }),
      });
    },
  });

  addTool(server, 'create_key', {
    description: 'Create a workspace key; answers the key whole, this once.',
    input: {
      workspace,
      name: z.string().min(1).max(100).optional(),
      scopes: z.array(z.string()).optional().describe('e.g. products:read; default: every scope'),
    },
    changes: true,
    run: async ({ workspace: given, name, scopes }) =>
      client.createKey((await workspaceOf(given)).id, { ...(name ? { name } : {}), ...(scopes ? { scopes } : {}) }),
  });

  addTool(server, 'revoke_key', {
    description: 'Revoke a workspace key: its next request gets 401 KEY_REVOKED.',
    input: { key: z.string().describe('the key id, the prefix listings show, or the key itself') },
    changes: true,
    run: async ({ key }) => client.revokeKey(findWorkspaceKey(await client.workspaces(), key).key.id),
  });

  addTool(server, 'add_fault', {
    description:
      'Add a fault rule: matching /v1 requests get the given status (and body), a delay, or a dropped connection. With target "delivery", matching webhook deliveries are duplicated, reordered, delayed, dropped once or held, on the sandbox clock, to test a receiver against at-least-once, unordered delivery.',
    input: {
      path: z.string().optional().describe('a /v1 path; * within a segment, ** across: /v1/bookings/*'),
      method: z.string().optional(),
      workspace: z.string().optional().describe('workspace id, name or part of its name; without it, every workspace'),
      key: z.string().optional().describe('a key id or listing prefix'),
      status: z.number().int().min(100).max(599).optional(),
      body: z.unknown().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      latencyMs: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('request: real time, at most 120000; delivery: sandbox time each delivery is late by, or with duplicate when the duplicate follows'),
      drop: z.boolean().optional().describe('request: drop the connection; delivery: the first attempt is not sent, so a retry follows'),
      times: z.number().int().min(1).optional().describe('fire this many times, then retire'),
      probability: z.number().min(0).max(1).optional(),
      seed: z.number().int().optional().describe('seed of the probability draws: the same seed fires on the same requests or deliveries'),
      target: z
        .enum(['request', 'delivery'])
        .optional()
        .describe('request (default): /v1 requests; delivery: webhook deliveries, with one of duplicate, reorderMs, latencyMs, drop, holdUntil'),
      event: z.string().optional().describe('delivery: an event type or pattern, booking.*'),
      subscriptionId: z.string().optional().describe('delivery: only deliveries to this subscription'),
      duplicate: z.boolean().optional().describe('delivery: send the event again (same webhook-id) after the first answer'),
      reorderMs: z.number().int().min(1).optional().describe('delivery: hold the event back this long (sandbox time), so later events overtake it'),
      holdUntil: z.string().optional().describe('delivery: an outage until this ISO time, or for this long (30s, 5m): deliveries wait, then go at once'),
    },
    changes: true,
    run: async ({ workspace: given, ...rule }) => client.addFault({ ...rule, ...(given === undefined ? {} : { workspaceId: (await workspaceOf(given)).id }) }),
  });

  addTool(server, 'clear_faults', {
    description: 'Remove every fault rule; the deliveries that delivery rules hold are sent now, in order.',
    input: {},
    changes: true,
    run: async () => client.clearFaults(),
  });

  addTool(server, 'trigger_event', {
    description: "Emit a domain event in a workspace (booking.created, ...) as if the API had: its webhooks are delivered to the workspace's subscriptions.",
    input: {
      type: z.string().describe('an event type, e.g. booking.created'),
      workspace,
      data: z.record(z.string(), z.unknown()).optional().describe('the whole data, instead of a sample'),
      override: z.record(z.string(), z.unknown()).optional().describe('dotted paths whose values replace fields of the sample'),
    },
    changes: true,
    run: async ({ type, workspace: given, data, override }) =>
      client.emitEvent({ workspaceId: (await workspaceOf(given)).id, type: type as never, ...(data ? { data } : {}), ...(override ? { override } : {}) }),
  });

  addTool(server, 'list_deliveries', {
    description: 'Webhook deliveries and their attempts (status, response, next retry), newest first.',
    input: {
      workspace: z.string().optional().describe('workspace id, name or part of its name (default: every workspace)'),
      subscriptionId: z.string().optional(),
      eventType: z.string().optional(),
      status: z.enum(DELIVERY_STATUSES).optional(),
      limit: z.number().int().min(1).max(500).optional().describe('at most this many (default 20)'),
      bodies: z.boolean().optional().describe('true: with the payload each attempt sent (left out by default: an event is kilobytes)'),
    },
    changes: false,
    run: async ({ workspace: given, status, limit, bodies, ...query }) => {
      const deliveries = await client.deliveries({
        ...query,
        limit: limit ?? 20,
        ...(status ? { status } : {}),
        ...(given === undefined ? {} : { workspaceId: (await workspaceOf(given)).id }),
      });
      return bodies ? deliveries : deliveries.map(withoutBodies);
    },
  });

  addTool(server, 'replay_delivery', {
    description: 'Send a webhook delivery again now (same webhook-id); answers the delivery after the attempt.',
    input: { id: z.string() },
    changes: true,
    run: async ({ id }) => client.replayDelivery(id),
  });

  addTool(server, 'list_scenarios', {
    description: 'The scenarios shipped with the sandbox (scenarios/*.json): name, description, steps.',
    input: {},
    changes: false,
    run: async () =>
      Promise.all(
        (await listScenarioFiles(DEFAULT_SCENARIOS_DIR)).map(async (file) => {
          const scenario = await loadScenarioFile(file);
          return { name: basename(file, '.json'), description: scenario.description, steps: countSteps(scenario.steps) };
        }),
      ),
  });

  addTool(server, 'run_scenario', {
    description:
      'Run a scenario against this sandbox, as `sandbox scenario run --url` does: its requests, clock moves and checks, step by step; answers which steps passed and what differed. Checked first, as `sandbox scenario validate` does.',
    input: { name: z.string().min(1).describe('a name from list_scenarios, or the path of a scenario .json file') },
    changes: true,
    run: async ({ name }) => {
      const file = await findScenarioFile(DEFAULT_SCENARIOS_DIR, name);
      const { scenario, problems } = await validateScenarioFile(file, { workspaces: await client.workspaces() });
      if (!scenario) throw new Error(problems.map(formatProblem).join('; '));
      return runScenario(scenario, { url: client.baseUrl, token });
    },
  });

  addTool(server, 'run_report', {
    description: 'The run report: operations called (by status) and never called, refusals by reason, warnings, deliveries.',
    input: {},
    changes: false,
    run: async () => client.report(),
  });
}
