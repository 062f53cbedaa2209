import type { DataOf } from '../api.ts';

export type Delivery = DataOf<'/__sandbox/deliveries/{id}', 'get'>;
export type Attempt = Delivery['attempts'][number];
export type DeliveryStatus = Delivery['status'];
export const STATUSES: DeliveryStatus[] = ['pending', 'succeeded', 'failed', 'cancelled', 'expired'];

/** A webhook subscription as stored (GET /__sandbox/workspaces/:id/collections/webhook_subscriptions): snake_case, secret redacted. */
export interface SubscriptionRow {
  id: string;
  url?: string;
  events?: string[];
  active?: boolean;
  max_retries?: number;
  description?: string | null;
  failure_count?: number;
  last_delivery_at?: string | null;
  failing_since?: string | null;
  disabled?: { at: string; reason: string } | null;
  created_at?: string;
}

export function statusTone(status: DeliveryStatus): 'ok' | 'warn' | 'bad' {
  return status === 'succeeded' ? 'ok' : status === 'pending' ? 'warn' : 'bad';
}

/** Headers a receiver checks the signature with (Standard Webhooks). */
export const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
