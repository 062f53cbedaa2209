import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_STREAM_CLIENTS, resolveOptions } from '../../src/config.ts';
import { startOptions, type StartFlags } from '../../src/cli/start.ts';
import { RequestLog } from '../../src/core/request-log.ts';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { openStream, type StreamReader } from '../helpers/sse.ts';

/** Stream clients are capped, and each costs /v1 little (one encoding per event, shared). */
describe('the clients of GET /__sandbox/stream', () => {
  let sandbox: Sandbox | undefined;
  let streams: StreamReader[] = [];
  afterEach(async () => {
    for (const stream of streams) stream.close();
    streams = [];
    vi.restoreAllMocks();
    await sandbox?.stop();
    sandbox = undefined;
  });

  const open = async (query = '') => {
    const stream = await openStream(sandbox!.controlUrl, query);
    streams.push(stream);
    return stream;
  };

  it('are 100 at most by default; the option and the flag raise it', () => {
    expect(DEFAULT_MAX_STREAM_CLIENTS).toBe(100);
    expect(resolveOptions({}).maxStreamClients).toBe(100);
    expect(startOptions({ port: 0, host: '127.0.0.1', data: '', clock: 'real', rateLimits: true, maxStreamClients: 250 } as StartFlags).maxStreamClients).toBe(
      250,
    );
  });

  it('the 101st is refused with a 409 whose reason says how to close one or raise the cap; a client leaving makes room', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    for (let i = 0; i < 100; i++) {
      const stream = await open('?events=reset');
      expect(stream.response.status).toBe(200);
    }
    const refused = await fetch(`${sandbox.controlUrl}/stream`);
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: string; code: string };
    expect(body.code).toBe('CONTROL_CONFLICT');
    expect(body.error).toContain('100 clients');
    const reason = refused.headers.get('x-sandbox-reason') ?? '';
    expect(reason).toMatch(/^CONTROL_CONFLICT /);
    expect(reason).toContain('close one');
    expect(reason).toContain('--max-stream-clients');
    expect(reason).toContain('maxStreamClients');

    streams.pop()!.close();
    // the server sees the client leave a moment later: poll for the place, no fixed sleep
    let status = 409;
    for (let tries = 0; status === 409 && tries < 200; tries++) {
      const again = await open('?events=reset');
      status = again.response.status;
      if (status === 409) {
        streams.pop()!.close();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    expect(status).toBe(200);
  });

  it('maxStreamClients sets the cap', async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual', maxStreamClients: 2 });
    expect((await open()).response.status).toBe(200);
    expect((await open('?detail=none')).response.status).toBe(200);
    const refused = await fetch(`${sandbox.controlUrl}/stream`);
    expect(refused.status).toBe(409);
    expect(refused.headers.get('x-sandbox-reason')).toContain('2 clients');
  });

  it("a request's headers and bodies are rendered into its event once, however many clients read them", async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    const readers = [await open(), await open(), await open(), await open()];
    await Promise.all(readers.map((r) => r.readUntil('event: hello')));
    const withDetail = vi.spyOn(RequestLog.prototype, 'withDetail');
    const res = await fetch(`${sandbox.url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}`, 'x-request-id': 'shared-1' } });
    expect(res.status).toBe(200);
    await Promise.all(readers.map((r) => r.readUntil('"requestId":"shared-1"')));
    for (const reader of readers) expect((reader.firstData('request') as { detail?: unknown }).detail).toBeDefined();
    expect(withDetail).toHaveBeenCalledTimes(1); // one client's worth: the event is built once and shared
  });
});
