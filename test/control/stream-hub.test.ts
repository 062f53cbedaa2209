import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BEHIND_HEARTBEATS_BEFORE_CLOSE, STREAM_BACKLOG_BYTES, StreamHub } from '../../src/control/stream-hub.ts';
import { StreamWriter } from '../../src/control/stream-writer.ts';
import { EventBus, type RequestLogEntry } from '../../src/core/events.ts';
import { RequestLog } from '../../src/core/request-log.ts';
import { FORWARDED_EVENTS } from '../../src/core/stream-events.ts';

/**
 * A client's socket as the hub sees it: what was written, and how much it has not yet taken
 * (`writableLength`), which the test sets to play a client that reads too slowly.
 */
class FakeResponse {
  writes: (string | Buffer)[] = [];
  writableLength = 0;
  destroyed = false;
  write(chunk: string | Buffer): boolean {
    this.writes.push(chunk);
    return true;
  }
  destroy(): void {
    this.destroyed = true;
  }
  get text(): string {
    return this.writes.map(String).join('');
  }
  get bytes(): number {
    return this.writes.reduce((n, w) => n + Buffer.byteLength(w), 0);
  }
}

const entry = (i: number): RequestLogEntry => ({
  requestId: `req_${i}`,
  method: 'GET',
  path: `/v1/products?i=${i}`,
  status: 200,
  latencyMs: 1,
  workspaceId: 'ws',
  keyPrefix: null,
  at: '2026-01-15T09:00:00.000Z',
});
const ALL = { detail: true, batched: false, events: FORWARDED_EVENTS };

function hubWith(maxClients = 100) {
  const bus = new EventBus();
  const log = new RequestLog(bus);
  let now = 0;
  const hub = new StreamHub(bus, log, maxClients, () => now);
  return { bus, hub, advance: (ms: number) => (now += ms) };
}

describe('the stream hub', () => {
  it('encodes each write once: every client with the same options gets the same Buffer', () => {
    const { bus, hub } = hubWith();
    const clients = [new FakeResponse(), new FakeResponse(), new FakeResponse()];
    for (const res of clients) hub.join(res as unknown as ServerResponse, ALL);
    const lean = new FakeResponse();
    hub.join(lean as unknown as ServerResponse, { detail: false, batched: true, events: ['request'] });
    for (let i = 0; i < 5; i++) bus.emit('request', entry(i));
    bus.emit('reset', { at: '2026-01-15T09:00:00.000Z' });
    hub.flush();
    const [first, ...others] = clients.map((res) => res.writes);
    expect(first).toHaveLength(1);
    expect(Buffer.isBuffer(first![0])).toBe(true);
    for (const writes of others) expect(writes[0]).toBe(first![0]); // the same object, not an equal copy
    expect(String(first![0]).match(/event: request\n/g)).toHaveLength(5);
    expect(String(first![0])).toContain('event: reset');
    // other options, other frames: one `requests` table, no reset
    expect(lean.text).toContain('event: requests');
    expect(lean.text).not.toContain('event: reset');
  });

  it('a client that reads too slowly has writes dropped, its memory bounded, and is told how many it missed', () => {
    const { bus, hub } = hubWith();
    const slow = new FakeResponse();
    const fast = new FakeResponse();
    hub.join(slow as unknown as ServerResponse, ALL);
    hub.join(fast as unknown as ServerResponse, ALL);
    slow.writableLength = STREAM_BACKLOG_BYTES + 1; // its socket has not taken the last MB
    for (let round = 0; round < 50; round++) {
      bus.emit('reset', { at: `round ${round}` });
      hub.flush();
    }
    expect(slow.writes).toHaveLength(0); // nothing more buffered for it, however long it lasts
    expect(fast.writes).toHaveLength(50);
    slow.writableLength = 0; // it caught up
    bus.emit('reset', { at: 'after' });
    hub.flush();
    expect(slow.text).toMatch(/^: dropped 50 events: this client read too slowly/);
    expect(slow.text).toContain('"at":"after"');
  });

  it('a client still behind after a minute of heartbeats is closed, freeing its place', () => {
    const { hub } = hubWith();
    const stuck = new FakeResponse();
    hub.join(stuck as unknown as ServerResponse, ALL);
    stuck.writableLength = STREAM_BACKLOG_BYTES + 1;
    for (let beat = 1; beat < BEHIND_HEARTBEATS_BEFORE_CLOSE; beat++) hub.heartbeat();
    expect(stuck.destroyed).toBe(false);
    hub.heartbeat();
    expect(stuck.destroyed).toBe(true);
  });

  it('past the cap, admit throws the 409', () => {
    const { hub } = hubWith(1);
    hub.admit();
    const leave = hub.join(new FakeResponse() as unknown as ServerResponse, ALL);
    expect(() => hub.admit()).toThrow(/1 clients, its limit/);
    leave();
    expect(() => hub.admit()).not.toThrow();
  });

  it("the stream's bytes a second are shared: past a client's share its request events are dropped, and it is told", () => {
    const { bus, hub, advance } = hubWith();
    const clients = Array.from({ length: 100 }, () => new FakeResponse());
    for (const res of clients) hub.join(res as unknown as ServerResponse, { detail: false, batched: false, events: ['request', 'reset'] });
    const share = hub.bytesPerClient();
    expect(share).toBe(167_772); // 16 MiB a second among 100 clients: 16,777,216 / 100 = 167,772.16, above the 64 KiB floor
    const sent = 5 * Math.ceil(share / 150); // several times the share, at ~200 bytes an event
    for (let i = 0; i < sent; i++) bus.emit('request', entry(i));
    bus.emit('reset', { at: 'never dropped' });
    hub.flush();
    const text = clients[0]!.text;
    const kept = text.match(/event: request\n/g)!.length;
    const dropped = Number(/: dropped (\d+) request events/.exec(text)![1]);
    expect(kept + dropped).toBe(sent);
    expect(clients[0]!.bytes).toBeLessThan(share + 1024); // its share, and one event past it at most
    expect(text).toContain('never dropped');
    // the next second has room again
    advance(1000);
    bus.emit('request', entry(sent));
    hub.flush();
    expect(clients[0]!.writes.at(-1)!.toString()).toContain(`"requestId":"req_${sent}"`);
  });

  it('one client alone keeps the whole budget', () => {
    let written = '';
    const writer = new StreamWriter((frames) => (written += frames), false);
    for (let i = 0; i < 1000; i++) writer.request(entry(i));
    writer.flush();
    writer.close();
    expect(written.match(/event: request\n/g)).toHaveLength(1000);
    expect(written).not.toContain('dropped');
  });
});
