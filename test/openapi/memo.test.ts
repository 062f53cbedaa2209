import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { CatalogRoute } from '../../src/core/route-catalog.ts';
import { memoizedDocument } from '../../src/http/openapi-memo.ts';
import { RESOURCES } from '../../src/resources/index.ts';
import { testSandbox } from '../helpers/sandbox.ts';

const BOOKINGS_AREA = RESOURCES.find((area) => area.name === 'bookings');

const route = (over: Partial<CatalogRoute> = {}): CatalogRoute => ({
  method: 'GET',
  url: '/v1/memo-things',
  schema: { querystring: QUERY, response: { 200: BODY } },
  inferred: undefined,
  scope: 'things:read',
  summary: 'List things',
  ...over,
});
const QUERY = z.object({ limit: z.number() });
const BODY = z.object({ data: z.array(z.string()) });

describe('the OpenAPI document, built once per process for the same routes (src/http/openapi-memo.ts)', () => {
  it('hands back the first build for equal routes with the very same schemas, and builds again for any difference', () => {
    const build = vi.fn((routes: readonly CatalogRoute[]) => JSON.stringify(routes.map((r) => [r.method, r.url, r.summary])));
    const first = memoizedDocument([route()], build);
    expect(memoizedDocument([route()], build)).toBe(first);
    expect(build).toHaveBeenCalledTimes(1);
    // an equal-looking schema that is another object is another document
    memoizedDocument([route({ schema: { querystring: z.object({ limit: z.number() }), response: { 200: BODY } } })], build);
    expect(build).toHaveBeenCalledTimes(2);
    // so is another answer schema, summary, scope or route
    memoizedDocument([route({ schema: { querystring: QUERY, response: { 200: BODY, 404: BODY } } })], build);
    memoizedDocument([route({ summary: 'Other' })], build);
    memoizedDocument([route({ scope: 'things:write' })], build);
    memoizedDocument([route(), route({ method: 'POST' })], build);
    expect(build).toHaveBeenCalledTimes(6);
    expect(memoizedDocument([route()], build)).toBe(first);
    expect(build).toHaveBeenCalledTimes(6);
  });

  it('gives a second sandbox the very document a first one built, and a sandbox of other areas its own', async () => {
    const a = await testSandbox();
    const b = await testSandbox();
    const products = await testSandbox(
      {},
      RESOURCES.filter((area) => area !== BOOKINGS_AREA),
    );
    try {
      // the memo's premise: areas register module-level schemas, the very same objects in every sandbox
      const parts = (t: typeof a) =>
        t.sandbox.context.routes.routes.flatMap((r) =>
          Object.entries(r.schema ?? {}).flatMap(([part, value]) =>
            part === 'response'
              ? Object.entries(value as object).map(([status, body]) => [`${r.method} ${r.url} response ${status}`, body] as const)
              : [[`${r.method} ${r.url} ${part}`, value] as const],
          ),
        );
      const first = new Map(parts(a));
      const rebuilt = parts(b)
        .filter(([name, value]) => first.get(name) !== value)
        .map(([name]) => name);
      expect(rebuilt, 'schemas made anew at each registration: hoist them to module constants').toEqual([]);
      expect(b.sandbox.context.routes.document()).toBe(a.sandbox.context.routes.document());
      const fewer = JSON.parse(products.sandbox.context.routes.document()) as { paths: Record<string, unknown> };
      expect(Object.keys(fewer.paths).some((path) => path.startsWith('/v1/bookings'))).toBe(false);
      expect(Object.keys(JSON.parse(a.sandbox.context.routes.document()).paths)).toContain('/v1/bookings');
    } finally {
      await a.sandbox.stop();
      await b.sandbox.stop();
      await products.sandbox.stop();
    }
  });
});
