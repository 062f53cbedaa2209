import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { PACKAGE_ROOT } from '../config.ts';
import { CONTROL_ROUTES, type ControlClient } from '../control/client.ts';
import { ERROR_CODES } from '../core/error-codes.ts';
import { REASON_CODES } from '../core/reasons.ts';

/**
 * The rules an agent is held to, as MCP resources (docs/agents.md, "Resources"): each /v1
 * operation's summary from the running sandbox's OpenAPI document, the
 * catalogue of reason and error codes, and docs/divergences.md.
 */
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Operation = { operationId?: string; summary?: string; security?: unknown };

/** One line a /v1 operation: `GET /v1/bookings  listBookings  List bookings`. */
export function operationLines(paths: Record<string, unknown>): string {
  const lines: string[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith('/v1')) continue;
    for (const method of METHODS) {
      const op = (item as Partial<Record<(typeof METHODS)[number], Operation>>)[method];
      if (op) lines.push(`${method.toUpperCase()} ${path}  ${op.operationId ?? '-'}  ${op.summary ?? ''}`.trimEnd());
    }
  }
  return `${lines.join('\n')}\n`;
}

export function registerResources(server: McpServer, client: ControlClient): void {
  server.registerResource(
    'operations',
    'sandbox://openapi/operations',
    {
      title: 'API operations',
      description: 'Every /v1 operation of the API: method, path, operationId and summary (from GET /__sandbox/openapi.json)',
      mimeType: 'text/plain',
    },
    async (uri) => {
      const document = await client.request(CONTROL_ROUTES.openapi);
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: operationLines(document.paths) }] };
    },
  );

  server.registerResource(
    'reasons',
    'sandbox://reasons',
    {
      title: 'Reason catalogue',
      description: 'Why the sandbox refuses a request: each X-Sandbox-Reason code and error code, with its status and when it fires',
      mimeType: 'application/json',
    },
    async (uri) => {
      const entry = ([code, [status, when]]: [string, readonly [number | null, string]]) => ({ code, status, when });
      const catalogue = { reasons: Object.entries(REASON_CODES).map(entry), errorCodes: Object.entries(ERROR_CODES).map(entry) };
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(catalogue, null, 2) }] };
    },
  );

  server.registerResource(
    'divergences',
    'sandbox://docs/divergences.md',
    {
      title: 'Divergences from the real API',
      description: 'Where the sandbox knowingly differs from the API description (docs/divergences.md)',
      mimeType: 'text/markdown',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: await readFile(join(PACKAGE_ROOT, 'docs', 'divergences.md'), 'utf8') }] }),
  );
}
