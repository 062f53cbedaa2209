import type { EventBus, RequestLogEntry } from './events.ts';

/** The recent requests, newest last, bounded so a long run never grows memory. */
export class RequestLog {
  private entries: RequestLogEntry[] = [];

  constructor(
    bus: EventBus,
    private readonly capacity = 1000,
  ) {
    bus.on('request', (entry) => {
      this.entries.push(entry);
      if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    });
  }

  recent(limit: number): RequestLogEntry[] {
    return this.entries.slice(-limit).reverse();
  }

  clear(): void {
    this.entries = [];
  }
}
