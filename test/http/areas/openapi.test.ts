import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';

let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox();
});
afterAll(() => t.sandbox.stop());

describe('the OpenAPI document covers every endpoint of these areas', () => {
  it('lists them with their scopes, and marks the designed ones inferred', async () => {
    const res = await t.request('GET', '/__sandbox/openapi.json', { key: null });
    expect(res.statusCode).toBe(200);
    const { paths, components } = res.json();
    const op = (path: string, method: string) => paths[path]?.[method];
    expect(op('/v1/organizations/{id}/api-keys', 'post')['x-required-scope']).toBe('organizations:write');
    expect(op('/v1/organizations/{id}/api-keys', 'get')).toBeDefined();
    expect(op('/v1/organizations/{id}/api-keys/{keyId}', 'delete')).toBeDefined();
    expect(op('/v1/policies/{id}', 'get')).toBeDefined();
    expect(op('/v1/policies/{id}', 'delete')).toBeDefined();
    expect(op('/v1/forms', 'post')).toBeDefined();
    expect(op('/v1/gallery/folders', 'post').responses['201']).toBeDefined();
    expect(op('/v1/gallery/files/{id}', 'delete').responses['202']).toBeDefined();
    expect(op('/v1/analytics/comms/delivery-events', 'get')['x-required-scope']).toBe('analytics:read');
    expect(op('/v1/verify/sms/start', 'post')['x-sandbox-inferred']).toBeUndefined();
    expect(op('/v1/verify/email/confirm', 'post')['x-sandbox-inferred']).toBeUndefined();
    expect(op('/v1/verify/sms/confirm', 'post')['x-sandbox-inferred']).toBe(true);
    expect(op('/v1/verify/email/start', 'post')['x-sandbox-inferred']).toBe(true);
    // the body is shared with the control plane's route: a component of the document
    const body = op('/v1/organizations/{id}/api-keys', 'post').requestBody.content['application/json'].schema;
    expect(JSON.stringify(body.$ref ? components.schemas[body.$ref.replace('#/components/schemas/', '')] : body)).toContain('x-sandbox-inferred');
  });
});
