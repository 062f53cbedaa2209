import { api, unwrap, type DataOf } from '../api.ts';

/** The control plane's data routes (src/control/contracts/data.ts on the server; docs/control-plane.md, "Data inspector"). */
export type CollectionSummary = DataOf<'/__sandbox/workspaces/{id}/collections', 'get'>[number];
export type DataPage = DataOf<'/__sandbox/workspaces/{id}/collections/{collection}', 'get'>;
export type DataRecord = DataOf<'/__sandbox/workspaces/{id}/collections/{collection}/{recordId}', 'get'>;

export const PAGE_SIZE = 100;

export function loadCollections(workspaceId: string): Promise<CollectionSummary[]> {
  return unwrap(api.GET('/__sandbox/workspaces/{id}/collections', { params: { path: { id: workspaceId } } }));
}

export function loadPage(
  workspaceId: string,
  collection: string,
  query: { offset: number; order?: 'stored' | 'newest'; q?: string; id?: string },
): Promise<DataPage> {
  return unwrap(
    api.GET('/__sandbox/workspaces/{id}/collections/{collection}', {
      params: { path: { id: workspaceId, collection }, query: { limit: PAGE_SIZE, ...query } },
    }),
  );
}

export function loadRecord(workspaceId: string, collection: string, recordId: string): Promise<DataRecord> {
  return unwrap(api.GET('/__sandbox/workspaces/{id}/collections/{collection}/{recordId}', { params: { path: { id: workspaceId, collection, recordId } } }));
}
