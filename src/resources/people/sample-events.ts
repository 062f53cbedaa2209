import { latestRecord, type SampleEvents } from '../../webhooks/sample-data.ts';
import { PEOPLE } from './collections.ts';

/** The people area's sample event data (src/webhooks/sample-data.ts): customer events from the workspace's latest person. */
export const PEOPLE_SAMPLE_EVENTS: SampleEvents = {
  customer: (store, workspaceId, type, nowIso) => {
    const person = latestRecord(PEOPLE, store, workspaceId);
    if (!person) return null;
    return type === 'customer.updated' ? { ...person, updatedAt: nowIso } : person;
  },
};
