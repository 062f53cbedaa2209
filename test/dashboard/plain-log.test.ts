import { afterEach, describe, expect, it } from 'vitest';
import { plainLogSink } from '../../src/dashboard/plain-log.ts';
import { runCli, waitForStdout, type Running } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { delivery, request } from './fake-source.ts';

describe('plain log lines (no terminal)', () => {
  it('prints one line per request, event and new delivery attempt', () => {
    const lines: string[] = [];
    const sink = plainLogSink((line) => lines.push(line));
    sink.initial({
      requests: [],
      deliveries: [delivery({ id: 'dlv_old', attempts: 2 })],
      rateLimits: [],
      clock: null,
      uptimeMs: 0,
      workspaceNames: { wksp_a: 'Aurora Tours' },
    });
    sink.feed(request({ method: 'POST', path: '/v1/bookings', status: 201, requestId: 'req_x' }));
    sink.feed({ kind: 'domain', event: { id: 'evt_1', type: 'booking.created', workspaceId: 'wksp_a', createdAt: '2026-01-05T10:00:00.000Z', data: {} } });
    sink.deliveries([delivery({ id: 'dlv_old', attempts: 2 }), delivery({ id: 'dlv_new', attempts: 1, httpStatus: 200, status: 'succeeded' })]);
    sink.deliveries([delivery({ id: 'dlv_new', attempts: 1, httpStatus: 200, status: 'succeeded' })]);
    expect(lines).toEqual([
      '10:00:00 request  POST /v1/bookings 201 3.2ms Aurora Tours tcs_live_aurora req_x',
      '10:00:00 event    booking.created Aurora Tours evt_1',
      '10:00:01 delivery booking.created → http://localhost:3000/hooks attempt 1/6 succeeded 200 12ms dlv_new',
    ]);
  });

  it('gives each attempt its own next retry when one poll brings two', () => {
    const lines: string[] = [];
    const sink = plainLogSink((line) => lines.push(line));
    const twice = delivery({ id: 'dlv_two', attempts: 2 });
    twice.attempts[1]!.at = '2026-01-05T10:00:06.000Z';
    sink.deliveries([{ ...twice, nextAttemptAt: '2026-01-05T10:05:06.000Z' }]);
    expect(lines.map((l) => /attempt (\d).* next retry (\S+)$/.exec(l)?.slice(1))).toEqual([
      ['1', '2026-01-05T10:00:06.000Z'],
      ['2', '2026-01-05T10:05:06.000Z'],
    ]);
  });
});

describe('sandbox start --dashboard without a terminal', () => {
  let run: Running | undefined;
  afterEach(async () => {
    run?.child.kill('SIGTERM');
    await run?.exit;
  });

  it('falls back to plain log lines on stdout', async () => {
    run = runCli(['start', '--dashboard', '--in-memory', '--port', '0']);
    const first = await run.firstLine;
    const url = /(http:\/\/\S+)/.exec(first)?.[1];
    expect(first).toMatch(/no terminal/);
    await waitForStdout(run, 'connected to the sandbox');
    await fetch(`${url}/v1/products?limit=1`, { headers: { authorization: `Bearer ${KEYS.liveFull}` } });
    await waitForStdout(run, 'GET /v1/products?limit=1 200');
    run.child.kill('SIGTERM');
    const exit = await run.exit;
    expect(exit.code).toBe(0);
    expect(exit.stdout).toMatch(/request {2}GET \/v1\/products\?limit=1 200 [\d.]+ms Aurora/);
  });

  it('lists the dashboard command in the help', async () => {
    const exit = await runCliInProcess(['dashboard', '--help']);
    expect(exit.stdout).toContain('--url <url>');
    expect(exit.stdout).toContain('r replay');
  });
});
