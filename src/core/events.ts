import { randomUUID } from 'node:crypto';
import type { DeliveryUpdate, RateLimitChange } from './event-payloads.ts';

/**
 * The typed event bus. Services emit domain events; webhooks, the request log,
 * the SSE stream and the dashboard subscribe. Listeners never throw into the
 * emitter: a failing side effect must not fail the request that caused it.
 */
export interface DomainEvent {
  id: string;
  type: string;
  workspaceId: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export interface RequestLogEntry {
  requestId: string;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  workspaceId: string | null;
  keyPrefix: string | null;
  at: string;
  /** where the sandbox accepted the request only by guessing (X-Sandbox-Warning); absent when none */
  warnings?: { code: string; message: string }[];
  /** why the sandbox refused it: the X-Sandbox-Reason value, `CODE sentence`; absent when it did not */
  reason?: string;
  /** headers and bodies, captured only while someone watches the stream (the dashboard) */
  detail?: RequestDetail;
}

/** A bounded capture of one exchange; Authorization is never kept, only the key prefix. */
export interface RequestDetail {
  request: { headers: Record<string, string>; body: string | null; truncated: boolean };
  response: { headers: Record<string, string>; body: string | null; truncated: boolean };
}

/** The rate-limit and delivery payloads are defined by zod schemas (src/core/event-payloads.ts), which the stream shares. */
export type { DeliveryUpdate, RateLimitChange } from './event-payloads.ts';

export interface SandboxEvents {
  domain: DomainEvent;
  request: RequestLogEntry;
  'rate-limit': RateLimitChange;
  delivery: DeliveryUpdate;
  /** a global reset or restore; `workspaceId` when one workspace alone was reset or restored */
  reset: { at: string; workspaceId?: string };
}

type Listener<T> = (payload: T) => void;

export class EventBus {
  private listeners = new Map<keyof SandboxEvents, Set<Listener<never>>>();

  on<K extends keyof SandboxEvents>(type: K, listener: Listener<SandboxEvents[K]>): () => void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener as Listener<never>);
    return () => set!.delete(listener as Listener<never>);
  }

  emit<K extends keyof SandboxEvents>(type: K, payload: SandboxEvents[K]): void {
    const set = this.listeners.get(type);
    if (!set) return;
    for (const listener of set) {
      try {
        (listener as Listener<SandboxEvents[K]>)(payload);
      } catch {
        // side effects are isolated from the emitter by design
      }
    }
  }

  hasListeners(type: keyof SandboxEvents): boolean {
    return (this.listeners.get(type)?.size ?? 0) > 0;
  }
}

/**
 * Emits a domain event: one id, a dotted type (`booking.created`), the
 * workspace, the time on the sandbox clock, and the resource as it stands after
 * the change. Services call this after their write is committed.
 */
export function emitDomainEvent(bus: EventBus, clock: { iso(): string }, workspaceId: string, type: string, data: Record<string, unknown>): DomainEvent {
  const event: DomainEvent = { id: `evt_${randomUUID()}`, type, workspaceId, createdAt: clock.iso(), data };
  bus.emit('domain', event);
  return event;
}
