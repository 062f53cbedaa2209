import type { ControlClient } from '../control/client.ts';

/**
 * What `sandbox listen` watches besides the deliveries: the control plane's live stream, for its
 * `reset` events only (a reset, a workspace reset, a snapshot restore, a state import: every
 * replacement of the state sends one, src/core/stream-events.ts), and the stream's end, which is
 * the sandbox stopping (a stop ends every stream at once, src/control/observe.ts). Asked with
 * `events=reset`, the stream makes the sandbox capture no request bodies for it.
 */
export class SandboxWatch {
  /** reset events seen since the watch opened */
  resets = 0;
  /** the stream ended or failed: the sandbox stopped, or is no longer reachable */
  ended = false;
  readonly #abort = new AbortController();
  #wake: (() => void) | null = null;

  private constructor() {}

  /** Opens the stream; resolves once the sandbox has said hello, so no later reset is missed. Rejects when it cannot be opened. */
  static open(client: ControlClient): Promise<SandboxWatch> {
    const watch = new SandboxWatch();
    return new Promise((resolve, reject) => {
      let joined = false;
      void (async () => {
        try {
          for await (const event of client.stream(watch.#abort.signal, { events: 'reset', detail: 'none', capture: 'off' })) {
            if (event.event === 'hello' && !joined) {
              joined = true;
              resolve(watch);
            } else if (event.event === 'reset') watch.#notice(() => watch.resets++);
          }
          if (!joined) reject(new Error(`the sandbox at ${client.baseUrl} closed its event stream before it said hello`));
        } catch (err) {
          if (!joined) reject(err);
        }
        watch.#notice(() => (watch.ended = true));
      })();
    });
  }

  /** Resolves after `ms` of wall time (the CLI's own pace, not the sandbox's clock), or as soon as a reset or the end comes. */
  pause(ms: number): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        if (self.#wake === done) self.#wake = null;
        resolve();
      }
      this.#wake = done;
    });
  }

  close(): void {
    this.ended = true;
    this.#abort.abort();
    this.#wake?.();
  }

  #notice(change: () => void): void {
    change();
    this.#wake?.();
  }
}
