import { latestRecord, type SampleEvents } from '../../webhooks/sample-data.ts';
import { GALLERY_FILES } from './collections.ts';

/** The gallery area's sample event data (src/webhooks/sample-data.ts): a deleted file from the workspace's latest file. */
export const GALLERY_SAMPLE_EVENTS: SampleEvents = {
  gallery: (store, workspaceId, type, nowIso) => {
    const file = latestRecord(GALLERY_FILES, store, workspaceId);
    if (!file) return null;
    return type === 'gallery.file.deleted' ? { ...file, deletedAt: nowIso } : file;
  },
};
