/**
 * Two receivers of the sandbox's booking webhooks, each keeping a shop's books: how many
 * bookings were sold, and each booking's status. Real delivery is at least once and
 * unordered, so the same event can arrive twice and an older one after a newer one.
 */
export interface BookingEvent {
  id: string;
  type: string;
  /** when the event happened (the sandbox clock): the order to apply events in */
  timestamp: string;
  data: { id: string; status: string };
}

export interface Shop {
  bookingsSold: number;
  statuses: Map<string, string>;
  /** one delivery: its webhook-id header and its verified payload */
  handle(webhookId: string, event: BookingEvent): void;
}

/** De-duplicates on webhook-id, and lets no event undo a newer one it already applied. */
export class CarefulShop implements Shop {
  bookingsSold = 0;
  readonly statuses = new Map<string, string>();
  readonly #handled = new Set<string>();
  readonly #appliedAt = new Map<string, string>();

  handle(webhookId: string, event: BookingEvent): void {
    // the same webhook-id again: a retry or a duplicate of something already done; answer 2xx and do nothing
    if (this.#handled.has(webhookId)) return;
    this.#handled.add(webhookId);
    if (event.type === 'booking.created') this.bookingsSold++;
    const applied = this.#appliedAt.get(event.data.id);
    // an event older than the one applied arrived late: the booking has moved on since
    if (applied !== undefined && applied > event.timestamp) return;
    this.#appliedAt.set(event.data.id, event.timestamp);
    this.statuses.set(event.data.id, event.data.status);
  }
}

/** Applies every delivery as it comes: a duplicate counts twice, and a late event wins. */
export class NaiveShop implements Shop {
  bookingsSold = 0;
  readonly statuses = new Map<string, string>();

  handle(_webhookId: string, event: BookingEvent): void {
    if (event.type === 'booking.created') this.bookingsSold++;
    this.statuses.set(event.data.id, event.data.status);
  }
}
