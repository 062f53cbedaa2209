import { expect } from 'vitest';
import type { TestSandbox } from '../../helpers/sandbox.ts';

/** The fixture organization of a workspace (each fixture file has one). */
export async function orgOf(t: TestSandbox, workspaceId: string): Promise<string> {
  return (await exported<{ id: string }>(t, workspaceId, 'organizations'))[0]!.id;
}

/** Some records of one collection of a workspace, through the control plane. */
export async function exported<T = Record<string, unknown>>(t: TestSandbox, workspaceId: string, collection: string): Promise<T[]> {
  const res = await t.request('GET', `/__sandbox/workspaces/${workspaceId}/export`, { key: null });
  return res.json().data[collection];
}

/** Issues an organization key through the API and returns the creation body. */
export async function issueKey(t: TestSandbox, orgId: string, body: Record<string, unknown> = {}, key?: string) {
  const res = await t.request('POST', `/v1/organizations/${orgId}/api-keys`, { body, ...(key ? { key } : {}) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; key: string; keyPrefix: string; [k: string]: unknown };
}
