/**
 * Names of the stored collections. Export (`GET /__sandbox/workspaces/:id/export`)
 * keys its output by these names.
 */
export const COLLECTIONS = {
  workspaces: 'workspaces',
  apiKeys: 'apiKeys',
  organizations: 'organizations',
  orgApiKeys: 'orgApiKeys',
  products: 'products',
  pricingOptions: 'pricingOptions',
  extensions: 'extensions',
  collections: 'collections',
  departures: 'departures',
  coupons: 'coupons',
  bookings: 'bookings',
  passengers: 'passengers',
  bookingItems: 'bookingItems',
  wizardSessions: 'wizardSessions',
  people: 'people',
  policies: 'policies',
  forms: 'forms',
  galleryFolders: 'galleryFolders',
  galleryFiles: 'galleryFiles',
  webhookSubscriptions: 'webhookSubscriptions',
  deliveryEvents: 'deliveryEvents',
  verifications: 'verifications',
  idempotency: 'idempotency',
  jobs: 'jobs',
  webhookDeliveries: 'webhookDeliveries',
} as const;

export type CollectionName = (typeof COLLECTIONS)[keyof typeof COLLECTIONS];

/** Collections that hold sandbox bookkeeping rather than workspace data. */
export const INTERNAL_COLLECTIONS: readonly CollectionName[] = ['apiKeys', 'workspaces', 'idempotency', 'jobs'];
