import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/dashboard/App.tsx';
import { delivery, FakeSource, request, waitForFrame } from './fake-source.ts';

const KEY = { tab: '\t', enter: '\r', escape: '\u001B', down: '\u001B[B' };

function mount(size = { columns: 80, rows: 24 }) {
  const source = new FakeSource();
  const quits: number[] = [];
  const app = render(<App source={source} batchMs={0} tickMs={0} size={size} color={false} onQuit={() => quits.push(1)} />);
  return { source, app, quits };
}

/** Writes keys one at a time, letting Ink read each before the next. */
async function press(app: ReturnType<typeof render>, ...keys: string[]) {
  for (const key of keys) {
    app.stdin.write(key);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('dashboard app', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('shows requests and deliveries fed through the stream, with status, latency, workspace and key prefix', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.initial({ deliveries: [delivery({ id: 'dlv_a', status: 'pending', attempts: 2, httpStatus: 503 })] });
    source.feed(request({ path: '/v1/bookings', method: 'POST', status: 201, latencyMs: 14 }), request({ path: '/v1/products/missing', status: 404 }));
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('/v1/products/missing'));
    expect(frame).toMatch(/POST\s+\/v1\/bookings\s+201\s+14ms\s+Aurora To…\s+tcs_live_au…/);
    expect(frame).toMatch(/GET\s+\/v1\/products\/missing\s+404/);
    expect(frame).toMatch(/booking\.created\s+http:\/\/localhos\S*\s+2\/6\s+pending\s+503/);
    expect(frame).toContain('2 req 1 err');
    // newest first: the 404 came last, so it is listed above the POST
    expect(frame.indexOf('/v1/products/missing')).toBeLessThan(frame.indexOf('/v1/bookings'));
  });

  it('fits an 80x24 terminal: no line is wider than 80 columns and nothing runs past 23 lines', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.initial({
      rateLimits: [
        { bucket: 'workspace:wksp_a', kind: 'workspace', id: 'wksp_a', limit: 3000, remaining: 2990, reset: 1, burst: 30, burstTokens: 3, perSecond: null },
      ],
    });
    for (let i = 0; i < 40; i++) source.feed(request({ path: `/v1/products/${'very-long-segment/'.repeat(8)}${i}` }));
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('Aurora Tours') && f.includes('very-long'));
    const lines = frame.split('\n');
    expect(lines.length).toBeLessThanOrEqual(23);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
    expect(frame).toMatch(/Aurora Tours\s+minute/);
    expect(frame).toContain('3/30');
  });

  it('filters requests by status and by path with /', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(request({ path: '/v1/bookings', status: 201 }), request({ path: '/v1/products/x', status: 404 }), request({ path: '/v1/people', status: 500 }));
    await waitForFrame(app.lastFrame, (f) => f.includes('/v1/people'));
    await press(app, '/', '4', 'x', 'x', KEY.enter);
    let frame = await waitForFrame(app.lastFrame, (f) => f.includes('filter: 4xx'));
    expect(frame).toContain('/v1/products/x');
    expect(frame).not.toContain('/v1/bookings');
    expect(frame).not.toContain('/v1/people');
    await press(app, '/', '\u007F', '\u007F', '\u007F', ...'people', KEY.enter);
    frame = await waitForFrame(app.lastFrame, (f) => f.includes('filter: people'));
    expect(frame).toContain('/v1/people');
    expect(frame).not.toContain('/v1/products/x');
  });

  it('replays the selected delivery when r is pressed in the webhooks panel', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.initial({
      deliveries: [delivery({ id: 'dlv_new' }), { ...delivery({ id: 'dlv_old', status: 'failed', attempts: 6 }), createdAt: '2026-01-05T09:00:00.000Z' }],
    });
    await waitForFrame(app.lastFrame, (f) => f.includes('failed'));
    await press(app, KEY.tab, 'j', 'r');
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('replayed dlv_old'));
    expect(source.replayed).toEqual(['dlv_old']);
    expect(frame).toMatch(/replayed dlv_old: 500/);
  });

  it('opens the details of a request with Enter: headers and pretty-printed bodies, no Authorization', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(
      request({
        method: 'POST',
        path: '/v1/bookings',
        status: 201,
        detail: {
          request: {
            headers: { 'content-type': 'application/json', authorization: 'Bearer tcs_live_aurora…' },
            body: '{"productId":"prod_1"}',
            truncated: false,
          },
          response: { headers: { 'x-request-id': 'req_9' }, body: '{"data":{"id":"book_1"}}', truncated: false },
        },
      }),
    );
    await waitForFrame(app.lastFrame, (f) => f.includes('/v1/bookings'));
    await press(app, KEY.enter);
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('Response body'));
    expect(frame).toContain('"productId": "prod_1"');
    expect(frame).toContain('"id": "book_1"');
    expect(frame).toContain('x-request-id: req_9');
    expect(frame).not.toMatch(/tcs_live_aurora_full_0+1/);
  });

  it('pauses the feed with p, clears with c, shows help with ? and quits with q', async () => {
    const { source, app, quits } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(request({ path: '/v1/first' }));
    await waitForFrame(app.lastFrame, (f) => f.includes('/v1/first'));
    await press(app, 'p');
    await waitForFrame(app.lastFrame, (f) => f.includes('PAUSED'));
    source.feed(request({ path: '/v1/held' }));
    let frame = await waitForFrame(app.lastFrame, (f) => f.includes('2 req'));
    expect(frame).not.toContain('/v1/held');
    await press(app, 'p');
    await waitForFrame(app.lastFrame, (f) => f.includes('/v1/held') && !f.includes('PAUSED'));
    await press(app, 'c');
    frame = await waitForFrame(app.lastFrame, (f) => f.includes('view cleared'));
    expect(frame).not.toContain('/v1/first');
    await press(app, '?');
    await waitForFrame(app.lastFrame, (f) => f.includes('replay the selected webhook delivery'));
    await press(app, 'q');
    expect(quits).toEqual([1]);
  });

  it('shows that the sandbox went away', async () => {
    const { source, app } = mount();
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.sink!.status('down', 'connection refused');
    await waitForFrame(app.lastFrame, (f) => f.includes('unreachable, reconnecting'));
    source.sink!.status('live');
    await waitForFrame(app.lastFrame, (f) => f.includes('● live'));
  });

  it('uses a wide terminal: requests in a tall left column with request ids', async () => {
    const { source, app } = mount({ columns: 200, rows: 50 });
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(request({ requestId: 'req_wide_1' }));
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('req_wide_1'));
    const lines = frame.split('\n');
    expect(lines.length).toBeLessThanOrEqual(49);
    expect(lines.find((l) => l.includes('Requests'))).toContain('Webhooks');
  });
});
