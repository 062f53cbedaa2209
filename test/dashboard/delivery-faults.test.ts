import { describe, expect, it } from 'vitest';
import type { DeliveryUpdate } from '../../src/core/stream-events.ts';
import { deliveryDetailLines } from '../../src/dashboard/details.ts';
import { applyDeliveryUpdate } from '../../src/dashboard/state.ts';

/** The dashboard says what a delivery fault rule did: from the stream's `delivery` event, in the delivery's details. */
const update: DeliveryUpdate = {
  id: 'dlv_2',
  workspaceId: 'wksp_1',
  subscriptionId: 'whsub_1',
  eventId: 'evt_1',
  url: 'http://127.0.0.1:3000/hooks',
  eventType: 'booking.created',
  status: 'succeeded',
  trigger: 'initial',
  attempt: 1,
  maxAttempts: 1,
  responseStatus: 200,
  latencyMs: 3,
  error: null,
  nextAttemptAt: null,
  at: '2026-01-15T09:00:00.000Z',
  fault: 'duplicate of dlv_1, made by fault_1a2b3c4d',
};

describe('delivery faults in the dashboard', () => {
  it("keeps the stream's fault line on the delivery and shows it in the details", () => {
    const view = applyDeliveryUpdate(undefined, update);
    expect(view.fault).toEqual({ summary: 'duplicate of dlv_1, made by fault_1a2b3c4d' });
    const lines = deliveryDetailLines(view, 100, 30).map((l) => l.text);
    expect(lines).toContain('fault: duplicate of dlv_1, made by fault_1a2b3c4d');
  });

  it('shows no fault line for a delivery no rule touched, as before', () => {
    const { fault: _fault, ...untouched } = update;
    const view = applyDeliveryUpdate(undefined, untouched);
    expect(view).not.toHaveProperty('fault');
    expect(deliveryDetailLines(view, 100, 30).some((l) => l.text.startsWith('fault'))).toBe(false);
  });
});
