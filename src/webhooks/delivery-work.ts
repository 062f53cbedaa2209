/**
 * The dispatcher's work in flight (./dispatcher.ts): every promise it starts is tracked, so a
 * stop, a test or `clock advance --to-next` can wait for it, and the work on one delivery runs
 * in turn, so attempts on it never overlap (a replay during a retry waits its turn).
 */
export class DeliveryWork {
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly locks = new Map<string, Promise<unknown>>();

  /** Resolves when the work running now has ended; not what starts meanwhile. */
  settled(): Promise<unknown> {
    return Promise.allSettled([...this.inFlight]);
  }

  /** Resolves when no work is running. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.catch(() => undefined);
    this.inFlight.add(settled);
    void settled.finally(() => this.inFlight.delete(settled));
    return work;
  }

  /** Runs `work` on one delivery once the work before it on that delivery is done. */
  locked<T>(id: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.locks.set(id, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.locks.get(id) === next) this.locks.delete(id);
      });
    return next;
  }
}
