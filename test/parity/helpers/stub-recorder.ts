import type { Exchange, ParityRecorder } from '../../../src/parity/types.ts';

/** A recorder that only keeps what the proxy hands it, for the proxy's own tests. */
export function stubRecorder(): ParityRecorder & { exchanges: Exchange[] } {
  const exchanges: Exchange[] = [];
  return {
    exchanges,
    record: (exchange) => void exchanges.push(exchange),
    report: () => ({ requests: exchanges.length, compared: 0, differences: [] }),
    example: () => undefined,
    clear: () => void exchanges.splice(0),
  };
}
