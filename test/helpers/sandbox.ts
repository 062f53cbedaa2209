import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Sandbox } from '../../src/index.ts';
import type { ResourceModule } from '../../src/resources/types.ts';
import { RESOURCES } from '../../src/resources/index.ts';
import { createSandboxWith } from '../../src/sandbox.ts';
import type { SandboxOptions } from '../../src/config.ts';
import { undocumentedAnswer } from './openapi-check.ts';

/** The documented fixture keys (README, "Fixture keys"). */
export const KEYS = {
  liveFull: 'tcs_live_aurora_full_0000000000000000000001',
  liveRead: 'tcs_live_aurora_products_read_00000000001',
  sandboxFull: 'tcs_test_borealis_full_00000000000000000001',
  sandboxRead: 'tcs_test_borealis_products_read_000000001',
} as const;

export interface TestSandbox {
  sandbox: Sandbox;
  request(
    method: string,
    path: string,
    opts?: { key?: string | null; body?: unknown; headers?: Record<string, string>; payload?: string },
  ): Promise<LightMyRequestResponse>;
  liveWorkspaceId: string;
  sandboxWorkspaceId: string;
}

/**
 * A JSON.parse for the OpenAPI check whose value the response's first `json()` hands back, so that
 * a body is parsed once, not twice. Ajv only reads it (no defaults, no coercion), and every later
 * `json()` parses afresh, so each call still returns an object of its own, as light-my-request's.
 */
function parsedOnceFor(res: LightMyRequestResponse): (text: string) => unknown {
  return (text) => {
    const value: unknown = JSON.parse(text);
    const json = res.json.bind(res);
    res.json = (() => {
      res.json = json;
      return value;
    }) as typeof res.json;
    return value;
  };
}

/**
 * An in-memory sandbox on a manual clock, served through app.inject, with
 * every response body checked against its route's response schema, and every
 * answer against the served OpenAPI document (status listed, body matching).
 */
export async function testSandbox(options: SandboxOptions = {}, resources: readonly ResourceModule[] = RESOURCES): Promise<TestSandbox> {
  const sandbox = await createSandboxWith(resources, { listen: false, clock: 'manual', storage: 'memory', validateResponses: true, ...options });
  const live = sandbox.workspaces.find((w) => w.mode === 'live')!;
  const sbx = sandbox.workspaces.find((w) => w.mode === 'sandbox')!;
  return {
    sandbox,
    liveWorkspaceId: live.id,
    sandboxWorkspaceId: sbx.id,
    request: (method, path, opts = {}) => {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      const key = opts.key === undefined ? KEYS.liveFull : opts.key;
      if (key !== null && headers.authorization === undefined) headers.authorization = `Bearer ${key}`;
      const inject: InjectOptions = { method: method as InjectOptions['method'], url: path, headers };
      // as the control client does: a control-plane POST must say JSON, even without a body (src/core/host-guard.ts)
      if (method === 'POST' && path.startsWith('/__sandbox')) headers['content-type'] ??= 'application/json';
      if (opts.payload !== undefined) inject.payload = opts.payload;
      else if (opts.body !== undefined) {
        inject.payload = JSON.stringify(opts.body);
        headers['content-type'] ??= 'application/json';
      }
      return sandbox.app.inject(inject).then((res) => {
        if (res.headers['x-sandbox-fault']) return res; // an injected fault answers what the user asked for
        const problem = undocumentedAnswer(
          sandbox.context.routes.document(),
          method,
          path,
          res.statusCode,
          res.headers['content-type'] as string | undefined,
          res.body,
          parsedOnceFor(res),
        );
        if (problem) throw new Error(problem);
        return res;
      });
    },
  };
}
