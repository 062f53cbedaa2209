import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createParityRecorder } from '../../src/parity/report.ts';
import type { Answer, Exchange } from '../../src/parity/types.ts';
import { expectOneLineFailure, json, useSandbox } from '../cli/commands/harness.ts';

/** `sandbox parity` against a sandbox whose recorder the test feeds. */
const t = useSandbox();
const answer = (status: number, body: unknown): Answer => ({ status, headers: { 'x-request-id': 'r', 'content-type': 'application/json' }, body });
let n = 0;
const exchange = (urlPath: string, target: Answer, sandbox: Answer | null, more: Partial<Exchange> = {}): Exchange => ({
  requestId: `req_${++n}`,
  method: 'GET',
  urlPath,
  target,
  sandbox,
  learned: false,
  unknownIds: [],
  ...more,
});

function feed(withDrift: boolean) {
  const recorder = createParityRecorder({ routes: t.sandbox.context.routes });
  t.sandbox.context.parity.recorder = recorder;
  if (withDrift) {
    for (let i = 0; i < 3; i++)
      recorder.record(
        exchange(`/v1/products/prod_${i}`, answer(200, { data: { id: 'a', brand: 'x' } }), answer(200, { data: { id: 'b' } }), { requestId: `req_brand_${i}` }),
      );
    recorder.record(
      exchange('/v1/bookings/book_1', answer(200, { data: { id: 'a' } }), answer(404, { error: 'Booking not found' }), { requestId: 'req_status' }),
    );
  }
  recorder.record(exchange('/v1/people/ppl_1', answer(200, { data: { id: 'ppl_1' } }), null, { unknownIds: ['ppl_1'], requestId: 'req_unknown' }));
}

describe('sandbox parity', () => {
  it('says in one line that a sandbox that is not a proxy has no report, and how to start one', async () => {
    t.sandbox.context.parity.recorder = null;
    const line = expectOneLineFailure(await t.cli(['parity']));
    expect(line).toBe(`sandbox: ${t.sandbox.url} is not a parity proxy: start one with \`sandbox proxy --target <url>\` and pass its URL as --url`);
  });

  it('prints a short table, most frequent first, the unknown ids apart, and exits 1 on drift', async () => {
    feed(true);
    const r = await t.cli(['parity']);
    expect(r.code).toBe(1);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('4 requests compared of 5 forwarded: 2 differences');
    expect(lines[2]).toMatch(/^COUNT\s+KIND\s+OPERATION\s+FIELD\s+TARGET\s+SANDBOX\s+FIRST REQUEST$/);
    expect(lines[3]).toMatch(/^3\s+missing-field\s+GET \/v1\/products\/\{id\}\s+data\.brand\s+string\s+absent\s+req_brand_0$/);
    expect(lines[4]).toMatch(/^1\s+status\s+GET \/v1\/bookings\/\{id\}\s+200\s+404\s+req_status$/);
    expect(r.stdout).toContain('Unknown to the sandbox (data, not drift): 1 id it could not learn, on GET /v1/people/{id} (1, e.g. ppl_1)');
    const limited = await t.cli(['parity', '--limit', '1']);
    expect(limited.stdout).toContain('… and 1 more difference (--json or --markdown for all)');
  });

  it('--json prints the report as GET /__sandbox/parity answers it; --markdown a table of every difference', async () => {
    feed(true);
    const report = json(await t.cli(['parity', '--json']));
    expect(report).toMatchObject({ requests: 5, compared: 4 });
    expect(report.differences.map((d: { kind: string }) => d.kind)).toEqual(['missing-field', 'status', 'unknown-id']);
    const md = await t.cli(['parity', '--markdown']);
    expect(md.code).toBe(1);
    expect(md.stdout).toContain('| 3 | missing-field | `GET /v1/products/{id}` | `data.brand` | string | absent | req_brand_0 |');
    expect(md.stdout).toContain('| 1 | status | `GET /v1/bookings/{id}` |  | 200 | 404 | req_status |');
  });

  it('--junit writes one failing testcase per difference, the unknown ids skipped and not failing', async () => {
    feed(true);
    const file = join(mkdtempSync(join(tmpdir(), 'parity-junit-')), 'parity.xml');
    expect((await t.cli(['parity', '--junit', file])).code).toBe(1);
    const xml = readFileSync(file, 'utf8');
    // the unknown id's request is also a request not compared, skipped with its reason
    expect(xml).toContain('<testsuites name="travel-commerce-sandbox parity" tests="4" failures="2" errors="0" skipped="2">');
    expect(xml).toContain('<testcase classname="parity.not-compared.unknown-id" name="GET /v1/people/{id}">');
    expect(xml).toContain(
      '<testcase classname="parity.missing-field" name="GET /v1/products/{id} data.brand"><failure type="missing-field" message="target: string; sandbox: absent">3 requests, the first req_brand_0',
    );
    expect(xml).toContain(
      '<testcase classname="parity.unknown-id" name="GET /v1/people/{id}"><skipped message="data, not drift: 1 id unknown to the sandbox, e.g. ppl_1"/></testcase>',
    );
  });

  it('exits 0 when the only lines are unknown ids, and writes a passing JUnit testcase', async () => {
    feed(false);
    const file = join(mkdtempSync(join(tmpdir(), 'parity-junit-')), 'parity.xml');
    const r = await t.cli(['parity', '--junit', file]);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('0 requests compared of 1 forwarded: no drift');
    expect(readFileSync(file, 'utf8')).toContain('failures="0"');
  });

  it('prints a line for each reason a request was not compared: learned, rate-limited, unknown-id; the counts add up to what was forwarded', async () => {
    const recorder = createParityRecorder({ routes: t.sandbox.context.routes });
    t.sandbox.context.parity.recorder = recorder;
    const ok = answer(200, { data: { id: 'ppl_1' } });
    recorder.record(exchange('/v1/people/ppl_1', ok, ok, { requestId: 'req_same' }));
    recorder.record(exchange('/v1/people/ppl_2', ok, answer(404, { error: 'Person not found' }), { requestId: 'req_learned', learned: true }));
    recorder.record(exchange('/v1/products', answer(429, { error: 'Rate limit exceeded' }), answer(200, { data: [] }), { requestId: 'req_429' }));
    recorder.record(exchange('/v1/bookings/book_9', ok, answer(404, { error: 'Booking not found' }), { requestId: 'req_unknown', unknownIds: ['book_9'] }));
    const r = await t.cli(['parity']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe('1 request compared of 4 forwarded: no drift');
    const lines = r.stdout.split('\n').filter((line) => line.startsWith('Not compared: '));
    expect(lines.sort()).toEqual(
      [
        "Not compared: GET /v1/people/{id} (1, the first req_learned): learned: the sandbox did not hold the record and learned it from the target's answer; the calls after it are compared",
        "Not compared: GET /v1/products (1, the first req_429): rate-limited: the target answered 429; the target's budget is not the sandbox's",
        'Not compared: GET /v1/bookings/{id} (1, the first req_unknown): unknown-id: it carries book_9, which the sandbox neither holds nor could learn; the sandbox answered 404, the target 200',
      ].sort(),
    );
    const report = json(await t.cli(['parity', '--json']));
    expect(report.requests).toBe(report.compared + report.notCompared.reduce((sum: number, n: { count: number }) => sum + n.count, 0));
  });

  it('lists the requests too large to compare, in text, --json and --junit (skipped), and they are not drift', async () => {
    const recorder = createParityRecorder({ routes: t.sandbox.context.routes });
    t.sandbox.context.parity.recorder = recorder;
    const big = (requestId: string, bytes: number): Exchange =>
      exchange('/v1/products', answer(200, undefined), answer(200, { data: [] }), {
        requestId,
        notCompared: { reason: 'too-large', bytes, detail: `too large to compare: ${bytes} bytes, over --target-max-body 1048576` },
      });
    recorder.record(big('req_big_1', 2_000_000));
    recorder.record(big('req_big_2', 3_000_000));
    const r = await t.cli(['parity']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      '0 requests compared of 2 forwarded: no drift\n\nNot compared: GET /v1/products (2, the first req_big_1): too large to compare: 3000000 bytes, over --target-max-body 1048576\n',
    );
    expect((await t.cli(['parity', '--markdown'])).stdout).toContain(
      '\n- Not compared: GET /v1/products (2, the first req_big_1): too large to compare: 3000000 bytes, over --target-max-body 1048576\n',
    );
    expect(json(await t.cli(['parity', '--json'])).notCompared).toEqual([
      {
        reason: 'too-large',
        method: 'GET',
        path: '/v1/products',
        count: 2,
        requestId: 'req_big_1',
        bytes: 3_000_000,
        detail: 'too large to compare: 3000000 bytes, over --target-max-body 1048576',
      },
    ]);
    const file = join(mkdtempSync(join(tmpdir(), 'parity-junit-')), 'parity.xml');
    expect((await t.cli(['parity', '--junit', file])).code).toBe(0);
    const xml = readFileSync(file, 'utf8');
    expect(xml).toContain('<testsuites name="travel-commerce-sandbox parity" tests="2" failures="0" errors="0" skipped="1">');
    expect(xml).toContain(
      '<testcase classname="parity.not-compared.too-large" name="GET /v1/products"><skipped message="too large to compare: 3000000 bytes, over --target-max-body 1048576 (2 requests, the first req_big_1)"/></testcase>',
    );
  });
});
