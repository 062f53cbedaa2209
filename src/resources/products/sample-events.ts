import { latestRecord, type SampleEvents } from '../../webhooks/sample-data.ts';
import { PRODUCTS } from './collections.ts';

/** The products area's sample event data (src/webhooks/sample-data.ts): the workspace's latest product. */
export const PRODUCT_SAMPLE_EVENTS: SampleEvents = {
  product: (store, workspaceId, type, nowIso) => {
    const product = latestRecord(PRODUCTS, store, workspaceId);
    if (!product) return null;
    if (type === 'product.published') return { ...product, status: 'active', updatedAt: nowIso };
    if (type === 'product.updated') return { ...product, updatedAt: nowIso };
    return product;
  },
};
