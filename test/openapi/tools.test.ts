import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { keptByHash } from '../helpers/test-cache.ts';

/**
 * The served OpenAPI document as the tools integrators feed it to see it:
 * a validating parser, and Redocly's recommended ruleset with no
 * rule turned off (0 errors, 0 warnings).
 */
let sandbox: Sandbox;
let text: string;

beforeAll(async () => {
  sandbox = await createSandbox({ listen: false, storage: 'memory', clock: 'manual' });
  text = (await sandbox.app.inject({ url: '/__sandbox/openapi.json' })).body;
});
afterAll(() => sandbox.stop());

describe('the OpenAPI document', () => {
  // Each tool's verdict on a document is kept by the document's hash and the tool's version
  // (test/helpers/test-cache.ts): a rerun on the same document skips loading the tool. The
  // parser's refusal throws and is not kept; Redocly's list is kept as it is, empty or not.
  it('is valid for @apidevtools/swagger-parser', async () => {
    const verdict = keptByHash('swagger-parser', ['@apidevtools/swagger-parser'], text, async () => {
      const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
      return (await SwaggerParser.validate(JSON.parse(text))) ? 'valid' : 'no api';
    });
    await expect(verdict).resolves.toBe('valid');
  });

  it("has no error and no warning under @redocly/openapi-core's recommended ruleset", async () => {
    const problems = await keptByHash('redocly-recommended', ['@redocly/openapi-core'], text, async () => {
      const { createConfig, lintFromString } = await import('@redocly/openapi-core');
      const config = await createConfig({ extends: ['recommended'] });
      const found = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
      return JSON.stringify(found.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`));
    });
    expect(JSON.parse(problems)).toEqual([]);
  });

  // the error body and its 62-code enum live once in components: copied into every error answer they
  // made the document 4.2 MB. A schema used again without an id (.meta({ id })) is copied, and grows it.
  it('stays under 600 KB, its error body and error answers written once in components', () => {
    expect(Buffer.byteLength(text)).toBeLessThan(600 * 1024);
    const doc = JSON.parse(text) as { components: { schemas: Record<string, unknown>; responses: Record<string, unknown> } };
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['ErrorBody', 'ErrorCode', 'Booking', 'Product']));
    expect(text.split('"x-error-codes"')).toHaveLength(2); // the catalogue, once
    expect(doc.components.responses.Error).toBeDefined(); // the {error, code} answer of 400, 404, 409, 413, 414, 415, once
  });

  it('gives every operation a unique operationId, a summary, a tag, and its 401 and 429 (API) answers', () => {
    const doc = JSON.parse(text) as {
      paths: Record<
        string,
        Record<string, { operationId: string; summary: string; tags: string[]; responses: Record<string, unknown>; parameters: { name: string; in: string }[] }>
      >;
    };
    const ids = new Set<string>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z]+$/);
        expect(ids.has(op.operationId), `${op.operationId} is used twice`).toBe(false);
        ids.add(op.operationId);
        expect(op.summary.length).toBeGreaterThan(0);
        expect(op.tags).toHaveLength(1);
        expect(op.responses['401'], `${method} ${path}`).toBeDefined();
        if (path.startsWith('/v1')) expect(op.responses['429'], `${method} ${path}`).toBeDefined();
        if (path.startsWith('/v1') && method === 'post') expect(op.parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key')).toBe(true);
      }
    }
    expect(doc.paths['/v1/webhooks/subscriptions/{id}']!.delete!.responses['204']).toEqual(expect.not.objectContaining({ content: expect.anything() }));
    expect(ids).toContain('listProducts');
    expect(ids).toContain('createBooking');
  });
});
