/**
 * The check every answer of the HTTP test helper goes through (test/helpers/openapi-check.ts):
 * it must still refuse what the document does not describe now that the component schemas are
 * compiled once each and named by `$id` (a `$ref` inside a component too), and still read a
 * nullable reference to a component as "null, or that component".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { undocumentedAnswer } from './openapi-check.ts';
import { testSandbox, type TestSandbox } from './sandbox.ts';

let t: TestSandbox;
let docText: string;
beforeAll(async () => {
  t = await testSandbox();
  docText = t.sandbox.context.routes.document();
});
afterAll(() => t.sandbox.stop());

/** A document of one operation whose answer refers to a component holding a nullable reference to another. */
const TINY = JSON.stringify({
  paths: { '/holders/{id}': { get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Holder' } } } } } } } },
  components: {
    schemas: {
      Holder: {
        type: 'object',
        required: ['quote'],
        properties: { quote: { nullable: true, allOf: [{ $ref: '#/components/schemas/Quote' }], type: 'object' } },
      },
      Quote: { type: 'object', required: ['total'], properties: { total: { type: 'number' } } },
    },
  },
});

describe('the OpenAPI check of every answer', () => {
  it('passes a real answer and refuses the same body with a field of a referenced component broken', async () => {
    const res = await t.request('GET', '/v1/bookings?limit=1');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toHaveLength(1);
    expect(undocumentedAnswer(docText, 'GET', '/v1/bookings?limit=1', 200, 'application/json', JSON.stringify(body))).toBeNull();
    // Booking is a component the list answer refers to; its totals are another one it refers to
    const broken = structuredClone(body);
    broken.data[0].status = 'lost';
    expect(undocumentedAnswer(docText, 'GET', '/v1/bookings', 200, 'application/json', JSON.stringify(broken))).toMatch(/does not match the OpenAPI document/);
    const nested = structuredClone(body);
    const totals = Object.keys(nested.data[0]).find((key) => key === 'totals');
    expect(totals).toBe('totals');
    nested.data[0].totals = 'none';
    expect(undocumentedAnswer(docText, 'GET', '/v1/bookings', 200, 'application/json', JSON.stringify(nested))).toMatch(/does not match the OpenAPI document/);
  });

  it('refuses a status the operation does not list', () => {
    expect(undocumentedAnswer(docText, 'GET', '/v1/bookings', 418, 'application/json', '{}')).toMatch(/answered 418, which the OpenAPI document does not list/);
  });

  it('reads a nullable reference to a component as null or that component, through a reference from a component', () => {
    const problem = (body: unknown) => undocumentedAnswer(TINY, 'GET', '/holders/h_1', 200, 'application/json', JSON.stringify(body));
    expect(problem({ quote: null })).toBeNull();
    expect(problem({ quote: { total: 12 } })).toBeNull();
    expect(problem({ quote: { total: 'twelve' } })).toMatch(/does not match the OpenAPI document/);
    expect(problem({ quote: 'none' })).toMatch(/does not match the OpenAPI document/);
    expect(problem({})).toMatch(/does not match the OpenAPI document/);
  });
});
