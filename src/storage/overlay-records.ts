import { z } from 'zod';
import { defineCollection } from './collection.ts';
import type { Row } from './types.ts';

/**
 * The rows behind copy-on-write workspaces (overlay-store.ts): one overlay
 * row per created workspace in the engine's global partition, its template's
 * rows in a base partition, and tombstones for base rows it deleted.
 */
export const OVERLAYS_COLLECTION = 'workspaceOverlays';
export const BASE_PREFIX = '~base:';
const TOMBSTONE = '~deleted';

export const OverlayRecordSchema = z.object({
  id: z.string(),
  baseId: z.string(),
  mask: z.string(),
  templateId: z.string(),
  createdAt: z.string(),
  /** the workspace's own values of the template's secrets (src/workspaces/templates.ts, freshSecrets); absent in databases of older versions */
  secrets: z.record(z.string(), z.string()).optional(),
});
export type OverlayRecord = z.output<typeof OverlayRecordSchema>;
/** The created workspaces, one row each, in the engine's global partition (never seen through the overlay). */
export const OVERLAYS = defineCollection({ name: OVERLAYS_COLLECTION, schema: OverlayRecordSchema, idPrefix: 'wksp', internal: true });

export const basePartition = (baseId: string): string => `${BASE_PREFIX}${baseId}`;
export const isTombstone = (row: Row | undefined): boolean => row !== undefined && row[TOMBSTONE] === true;
export const tombstone = (id: string): Row => ({ id, [TOMBSTONE]: true });
