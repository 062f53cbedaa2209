import { analyticsResource } from './analytics/index.ts';
import { bookingsResource } from './bookings/index.ts';
import { catalogResource } from './catalog/index.ts';
import { collectionMatchesResource } from './collections-matches/index.ts';
import { departuresResource } from './departures/index.ts';
import { peopleResource } from './people/index.ts';
import { formsResource } from './forms/index.ts';
import { galleryResource } from './gallery/index.ts';
import { organizationsResource } from './organizations/index.ts';
import { policiesResource } from './policies/index.ts';
import { productsResource } from './products/index.ts';
import type { ResourceModule } from './types.ts';
import { verificationResource } from './verification/index.ts';
import { webhooksResource } from './webhooks/index.ts';

/**
 * Every area of the API, in one explicit list (no directory magic): a reader
 * sees the whole surface here. Each module registers its routes under /v1.
 */
export const RESOURCES: readonly ResourceModule[] = [productsResource, formsResource, webhooksResource, organizationsResource, policiesResource, galleryResource, analyticsResource, verificationResource, catalogResource, collectionMatchesResource, departuresResource, bookingsResource, peopleResource];
