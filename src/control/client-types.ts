/** Shapes the control plane answers with, as the typed client returns them. */
export interface WorkspaceSummary {
  id: string;
  name: string;
  mode: 'live' | 'sandbox';
  /** made by POST /__sandbox/workspaces (and deletable), and from which fixture workspace */
  created?: boolean;
  templateId?: string | null;
  keys: { id: string; name: string; key: string | null; keyPrefix: string; scopes: string[] | null; status: string }[];
}

export interface DeliveryAttemptSummary {
  number: number;
  trigger: 'initial' | 'retry' | 'replay';
  at: string;
  response: { status: number; bodyExcerpt: string } | null;
  latencyMs: number;
  error: string | null;
}

export interface DeliverySummary {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  nextAttemptAt: string | null;
  attempts: DeliveryAttemptSummary[];
}

export interface SubscriptionSummary {
  id: string;
  url: string;
  events: string[];
  active: boolean;
}

export interface CreatedWorkspaceKey {
  id: string;
  workspaceId: string;
  name: string;
  key: string;
  keyPrefix: string;
  scopes: string[] | null;
  status: string;
  createdAt: string;
}

export interface OrganizationSummary {
  id: string;
  workspaceId: string;
  name: string;
  slug: string;
}

export interface OrgKeySummary {
  id: string;
  organizationId: string;
  organizationName: string;
  issuedByWorkspaceId: string;
  keyPrefix: string;
  scopes: string[];
  productIds: string[];
  status: 'active' | 'revoked';
  expiresAt: string | null;
  lastUsedAt: string | null;
  rateLimitPolicy: { rps: number; rpm: number; burst: number };
  createdAt: string;
  /** present after revocation */
  revokedAt?: string;
  revokedBy?: string;
}

export interface CreateOrgKeyInput {
  scopes?: string[];
  productIds?: string[];
  expiresAt?: string | null;
  rateLimitPolicy?: { rps: number; rpm: number; burst: number };
}

export interface ClockState {
  mode: 'real' | 'manual';
  now: string;
  nowMs: number;
  pendingTimers: number;
}

export interface FaultRuleSummary {
  id: string;
  method?: string;
  path?: string;
  workspaceId?: string;
  key?: string;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  latencyMs?: number;
  drop?: boolean;
  times?: number;
  probability?: number;
  seed?: number;
  remaining: number | null;
  hits: number;
  createdAt: string;
}

export type FaultRuleInput = Omit<FaultRuleSummary, 'id' | 'remaining' | 'hits' | 'createdAt'>;

export interface RateBucketSummary {
  bucket: string;
  kind: 'workspace' | 'key';
  id: string;
  limit: number;
  remaining: number;
  /** epoch seconds when the minute window resets; null before first use */
  reset: number | null;
  burst: number;
  burstTokens: number;
  perSecond: number | null;
}

export interface SnapshotSummary {
  name: string;
  createdAt: string;
  bytes: number;
}

export interface SeedResult {
  workspaceId: string;
  seed: number;
  created: Record<string, number>;
  /** existing departures whose seats the new bookings took */
  updated: { departures: number };
  ms: number;
}

/** One entry of the request log, as GET /__sandbox/requests and the stream send it. */
export type RequestLogLine = import('../core/events.ts').RequestLogEntry;

export interface HealthState {
  status: 'ok';
  uptimeMs: number;
  now: string;
}

export interface VerificationSummary {
  id: string;
  workspaceId: string;
  channel: 'sms' | 'email';
  target: string;
  code: string;
  status: string;
  attempts: number;
  expiresAt: string;
  createdAt: string;
}

/** One Server-Sent Event of GET /__sandbox/stream. */
