import { z } from 'zod';
import { defineRoutes } from '../../http/route-table/contract.ts';

/**
 * The data inspector (the browser inspector and `sandbox data`): the
 * records of a workspace's collections, a page at a time, one record with
 * what it points to and what points back to it. Served by ../data.ts;
 * documented in docs/control-plane.md, "Data inspector".
 *
 * Collections are named as the API names its resources: the snake_case of the
 * stored name (`webhookSubscriptions` -> `webhook_subscriptions`,
 * `pricingOptions` -> `pricing_options`); the stored name is accepted too.
 * Secrets (key hashes, code hashes, webhook signing secrets) are replaced by
 * "[redacted]" in every answer, and `q` never matches them.
 */
const WorkspaceParams = z.object({ id: z.string() });
const CollectionParams = z.object({ id: z.string(), collection: z.string() });
const RecordParams = z.object({ id: z.string(), collection: z.string(), recordId: z.string() });
const RecordSchema = z.looseObject({ id: z.string() });

export const DATA_PAGE_MAX = 500;

export const CollectionSummarySchema = z
  .object({
    /** as the API names the resource: snake_case */
    name: z.string(),
    /** the name the store and the database file use (camelCase) */
    stored: z.string(),
    count: z.number().int(),
    /** ids are `<idPrefix>_<uuid>`; null for bare UUIDs or free-form ids */
    idPrefix: z.string().nullable(),
  })
  .meta({ id: 'DataCollection' });

export const DataQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(DATA_PAGE_MAX).default(100),
  offset: z.coerce.number().int().min(0).default(0),
  q: z.string().max(200).optional().describe("case-insensitive text search over each record's JSON (secrets left out); empty: none"),
  id: z.string().max(200).optional().describe('exact id: 0 or 1 row; empty: none'),
  order: z
    .enum(['stored', 'newest'])
    .default('stored')
    .describe('stored: as stored, oldest first; newest: the newest first (a booking just made is on the first page). A `q` search lists its matches as stored'),
});

export const DataPageSchema = z
  .object({
    collection: z.string(),
    rows: z.array(RecordSchema),
    /** rows of the collection (that match `q` or `id`); a lower bound when totalIsExact is false */
    total: z.number().int(),
    /** false when a `q` search of a large collection stopped counting once the page was full */
    totalIsExact: z.boolean(),
    limit: z.number().int(),
    offset: z.number().int(),
  })
  .meta({ id: 'DataPage' });

export const DataLinkSchema = z.object({
  /** dotted path of the id in the record (`passengers.0.personId`) */
  field: z.string(),
  collection: z.string(),
  id: z.string(),
  exists: z.boolean(),
});

export const DataRelatedSchema = z.object({
  /** the collection whose records point to this one... */
  collection: z.string(),
  /** ...by this field */
  field: z.string(),
  count: z.number().int(),
  /** the `q` that lists them on the collection's page (the record's id) */
  q: z.string(),
});

export const DataRecordSchema = z
  .object({
    collection: z.string(),
    record: RecordSchema,
    links: z.array(DataLinkSchema),
    related: z.array(DataRelatedSchema),
  })
  .meta({ id: 'DataRecord' });

export const DATA_ROUTES = defineRoutes({
  dataCollections: {
    method: 'GET',
    path: '/workspaces/:id/collections',
    params: WorkspaceParams,
    data: z.array(CollectionSummarySchema),
    errors: [404],
    inferred: true,
    summary: 'The collections of a workspace (sandbox bookkeeping left out), as the API names them, with their counts',
  },
  dataPage: {
    method: 'GET',
    path: '/workspaces/:id/collections/:collection',
    params: CollectionParams,
    query: DataQuerySchema,
    data: DataPageSchema,
    errors: [400, 404],
    inferred: true,
    // derived, both this and the record's would be getSandboxWorkspaceCollection
    operationId: 'listSandboxWorkspaceCollectionRecords',
    summary: 'A page of the records of one collection of a workspace, as stored (oldest first) or newest first, by id or text search; secrets redacted',
  },
  dataRecord: {
    method: 'GET',
    path: '/workspaces/:id/collections/:collection/:recordId',
    params: RecordParams,
    data: DataRecordSchema,
    errors: [404],
    inferred: true,
    operationId: 'getSandboxWorkspaceCollectionRecord',
    summary: 'One record, the ids it holds (links) and the records of other collections that point to it (related)',
  },
});
