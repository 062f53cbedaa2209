import { defineCollection } from '../../storage/index.ts';
import { OrganizationSchema, OrgApiKeyRecordSchema } from './schemas.ts';

/** The organizations area's stored collections (ResourceModule.collections). */
export const ORGANIZATIONS = defineCollection({ name: 'organizations', schema: OrganizationSchema, idPrefix: 'org', reseeded: true });
export const ORG_API_KEYS = defineCollection({ name: 'orgApiKeys', schema: OrgApiKeyRecordSchema, idPrefix: 'orgkey', copied: false });
