import { render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { App } from '../../src/dashboard/App.tsx';
import { requestDetailLines } from '../../src/dashboard/details.ts';
import { plainLogSink } from '../../src/dashboard/plain-log.ts';
import { FakeSource, request, waitForFrame } from './fake-source.ts';

/** The dashboard shows why the sandbox refused a request (X-Sandbox-Reason). */
const REASON = 'KEY_REVOKED key tcs_live_aurora_... was revoked at 2026-01-15T09:00:00.000Z by the control plane';

describe('the reason in the dashboard', () => {
  let cleanup: (() => void) | undefined;
  afterEach(() => cleanup?.());

  it('Enter on a refused request shows its reason under the summary, whole, even in 80 columns', async () => {
    const source = new FakeSource();
    const app = render(<App source={source} batchMs={0} tickMs={0} size={{ columns: 80, rows: 24 }} color={false} onQuit={() => {}} />);
    cleanup = app.unmount;
    await waitForFrame(app.lastFrame, () => source.sink !== null);
    source.feed(request({ path: '/v1/products', status: 401, keyPrefix: null, reason: REASON }));
    await waitForFrame(app.lastFrame, (f) => f.includes('/v1/products'));
    app.stdin.write('\r');
    const frame = await waitForFrame(app.lastFrame, (f) => f.includes('why:'));
    const text = frame
      .replace(/[│║]/g, ' ')
      .split('\n')
      .map((l) => l.trim())
      .join(' ')
      .replace(/\s+/g, ' ');
    expect(text).toContain(`why: ${REASON}`);
  });

  it('details: the reason wraps to the width and comes before headers; none for an accepted request', () => {
    const row = {
      requestId: 'req_1',
      method: 'GET',
      path: '/v1/products',
      status: 401,
      latencyMs: 1,
      workspaceId: null,
      keyPrefix: null,
      at: '2026-01-15T09:00:00.000Z',
    };
    const lines = requestDetailLines({ ...row, reason: REASON }, 40, 30, {});
    const why = lines.filter((l) => l.tone === 'red');
    expect(why.length).toBeGreaterThan(1);
    for (const l of why) expect(l.text.length).toBeLessThanOrEqual(40);
    expect(why.map((l) => l.text).join(' ')).toBe(`why: ${REASON}`);
    expect(lines.indexOf(why[0]!)).toBe(1);
    expect(requestDetailLines({ ...row, status: 200 }, 40, 30, {}).some((l) => l.text.startsWith('why:'))).toBe(false);
  });

  it('the plain log (no terminal) ends the request line with the reason', () => {
    const lines: string[] = [];
    plainLogSink((line) => lines.push(line)).feed(request({ status: 401, reason: REASON }));
    expect(lines[0]).toMatch(/ 401 .* KEY_REVOKED key tcs_live_aurora_\.\.\. was revoked at/);
  });
});
