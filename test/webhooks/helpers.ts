import { Webhook } from 'standardwebhooks';
import { emitDomainEvent } from '../../src/core/events.ts';
import type { Delivery } from '../../src/webhooks/outbox.ts';
import type { TestSandbox } from '../helpers/sandbox.ts';
import type { Received } from './receiver.ts';

export interface CreatedSubscription {
  id: string;
  secret: string;
  max_retries: number;
  failure_count: number;
  active: boolean;
}

export async function subscribe(t: TestSandbox, body: Record<string, unknown>): Promise<CreatedSubscription> {
  const res = await t.request('POST', '/v1/webhooks/subscriptions', { body });
  if (res.statusCode !== 201) throw new Error(`subscribe failed: ${res.body}`);
  return res.json().data;
}

export async function getSubscription(t: TestSandbox, id: string): Promise<CreatedSubscription & { last_delivery_at: string | null }> {
  return (await t.request('GET', `/v1/webhooks/subscriptions/${id}`)).json().data;
}

/** Emits a domain event as a service would, and waits until the dispatcher has finished with it. */
export async function emit(t: TestSandbox, type: string, data: Record<string, unknown> = { id: 'book_x' }, workspaceId = t.liveWorkspaceId) {
  const event = emitDomainEvent(t.sandbox.events, t.sandbox.clock, workspaceId, type, data);
  await settle(t);
  return event;
}

export const settle = (t: TestSandbox) => t.sandbox.context.webhooks.idle();

export async function advance(t: TestSandbox, ms: number): Promise<void> {
  await t.sandbox.clock.advance(ms);
  await settle(t);
}

export function deliveriesOf(t: TestSandbox, subscriptionId: string): Delivery[] {
  return t.sandbox.context.webhooks.outbox.list({ subscriptionId });
}

/** Verifies with the Standard Webhooks reference verifier; throws when the signature is wrong. */
export function verify(secret: string, received: Received): unknown {
  return new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
}
