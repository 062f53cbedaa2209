import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../src/cli/clock.ts';
import { requestLine } from '../../../src/cli/logs.ts';
import { SseParser } from '../../../src/control/client.ts';
import { buildProgram } from '../../../src/cli/main.ts';

describe('parseDuration (sandbox clock advance)', () => {
  it.each([
    ['1500ms', 1500],
    ['90s', 90_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
    ['1d', 86_400_000],
    ['1500', 1500],
    ['0', 0],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    [' 2H ', 7_200_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'abc', '5 m', '5w', 'm5', '1e3', '1.5', '10ms5'])('refuses %j with a message naming it', (text) => {
    expect(() => parseDuration(text)).toThrow(`invalid duration "${text}"`);
  });

  it('refuses a negative duration with the way back', () => {
    expect(() => parseDuration('-5s')).toThrow(
      '"-5s" is a negative duration, and advancing moves the clock forward only; to go back, `sandbox clock set <iso>`',
    );
  });
});

describe('start --webhook-timeout', () => {
  const option = buildProgram('start')
    .commands.find((c) => c.name() === 'start')!
    .options.find((o) => o.long === '--webhook-timeout')!;
  it.each([
    ['2s', 2000],
    ['2500ms', 2500],
    ['1m', 60_000],
    ['10', 10_000], // a plain number stays seconds, as the option always read it
  ])('%s is %d ms', (text, ms) => {
    expect(option.parseArg!(text, undefined)).toBe(ms);
  });

  it('refuses past 5m naming the flag', () => {
    expect(() => option.parseArg!('6m', undefined)).toThrow('--webhook-timeout takes a duration from 1ms to 5m; "6m" is more');
  });
});

describe('SseParser (sandbox logs --follow)', () => {
  it('joins events split across chunks, skips comments and retry fields, and keeps multi-line data', () => {
    const parser = new SseParser();
    expect(parser.push('retry: 1000\nevent: hello\nda')).toEqual([]);
    expect(parser.push('ta: {"a":1}\n\n: heartbeat\n\nevent: request\r\ndata: line 1\r\ndata: line 2\r\n\r\n')).toEqual([
      { event: 'hello', data: '{"a":1}' },
      { event: 'request', data: 'line 1\nline 2' },
    ]);
    expect(parser.push('data: plain\n\n')).toEqual([{ event: 'message', data: 'plain' }]);
  });
});

describe('requestLine', () => {
  process.env.NO_COLOR = '1';
  it('shows time, method, path, status, latency and key prefix', () => {
    const line = requestLine({
      requestId: 'r',
      method: 'POST',
      path: '/v1/bookings',
      status: 201,
      latencyMs: 12.4,
      workspaceId: null,
      keyPrefix: 'tcs_live_aurora_',
      at: '2026-01-15T09:00:00.000Z',
    });
    expect(line).toBe('2026-01-15T09:00:00.000Z  POST    /v1/bookings  201  12ms  tcs_live_aurora_');
  });
});
