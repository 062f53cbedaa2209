import { createSandbox } from 'travel-commerce-sandbox';
import { startReceiver } from './receiver.ts';
import type { Shop } from './shops.ts';

/**
 * A shop's receiver under webhook chaos (docs/webhooks.md, "Testing your receiver"): a sandbox
 * on a manual clock whose delivery fault rules duplicate booking events and hold back some
 * booking.updated, seeded, so every run gets the same deliveries in the same order. Eight
 * bookings are made, confirmed, and every other one cancelled (the last too); then the clock is advanced until
 * no delivery is pending. Answers what the API says of each booking, and what the rules did.
 */
export const SEED = Number(process.env.CHAOS_SEED ?? 7);
const KEY = 'tcs_test_borealis_full_00000000000000000001';
const BOOKINGS = 8;

export async function runUnderChaos(shop: Shop): Promise<{ truth: Map<string, string>; duplicates: number; overtaken: number }> {
  const sandbox = await createSandbox({ port: 0, storage: 'memory', clock: 'manual', enforceRateLimits: false });
  const receiver = await startReceiver(shop);
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${sandbox.url}/__sandbox${path}`, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
    return ((await res.json()) as { data: T }).data;
  };
  const api = async (method: string, path: string, body: unknown) =>
    (
      await fetch(`${sandbox.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
  const tick = () => control('POST', '/clock/advance', { ms: 1000 });
  try {
    const workspaceId = sandbox.defaultWorkspace!.id;
    const { secret } = await control<{ secret: string }>('POST', '/webhook-subscriptions', { workspaceId, url: receiver.url, events: ['booking.*'] });
    receiver.setSecret(secret);
    // the chaos: a booking.created delivered twice with probability 0.5; a booking.updated held back a minute with 0.7
    await control('POST', '/faults', { target: 'delivery', event: 'booking.created', duplicate: true, probability: 0.5, seed: SEED });
    await control('POST', '/faults', { target: 'delivery', event: 'booking.updated', reorderMs: 60_000, probability: 0.7, seed: SEED + 1 });

    const { departure } = await control<{ departure: { id: string } }>('GET', `/workspaces/${workspaceId}/departures/bookable?seats=${BOOKINGS}`);
    const ids: string[] = [];
    for (let i = 0; i < BOOKINGS; i++) {
      ids.push((await api('POST', '/v1/bookings', { departureId: departure.id, adults: 1 })).data.id);
      await tick(); // each event a second apart on the sandbox clock: their timestamps order them
      await api('PATCH', `/v1/bookings/${ids[i]}`, { status: 'confirmed' });
      await tick();
      if (i % 2 === 1) await api('PATCH', `/v1/bookings/${ids[i]}`, { status: 'cancelled' });
      await tick();
    }
    await deliverEverything(control);

    const truth = new Map<string, string>();
    for (const id of ids)
      truth.set(id, (await (await fetch(`${sandbox.url}/v1/bookings/${id}`, { headers: { authorization: `Bearer ${KEY}` } })).json()).data.status);
    const deliveries = await control<{ fault: { action: string; duplicateOf?: string; overtakenCount?: number } | null }[]>('GET', '/deliveries?limit=500');
    const duplicates = deliveries.filter((d) => d.fault?.duplicateOf).length;
    const overtaken = deliveries.filter((d) => d.fault?.action === 'reorder' && (d.fault.overtakenCount ?? 0) > 0).length;
    return { truth, duplicates, overtaken };
  } finally {
    await receiver.close();
    await sandbox.stop();
  }
}

/** What `sandbox events wait` does: advance the clock to each pending delivery's time until none is pending. */
async function deliverEverything(control: <T>(method: string, path: string, body?: unknown) => Promise<T>): Promise<void> {
  for (;;) {
    const pending = await control<{ nextAttemptAt: string | null }[]>('GET', '/deliveries?status=pending&limit=500');
    if (pending.length === 0) return;
    const { nowMs } = await control<{ nowMs: number }>('GET', '/clock');
    const due = Math.min(...pending.map((d) => Date.parse(d.nextAttemptAt ?? '') - nowMs).filter((ms) => !Number.isNaN(ms)));
    if (due > 0) await control('POST', '/clock/advance', { ms: due });
    else await new Promise((resolve) => setTimeout(resolve, 20)); // an attempt in flight: its answer comes in real time
  }
}
