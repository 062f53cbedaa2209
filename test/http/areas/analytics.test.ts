import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';
import { exported } from './helpers.ts';

const INTERNAL = 'internal-service-key-for-area-tests-0001';
let t: TestSandbox;
beforeAll(async () => {
  t = await testSandbox({ enforceRateLimits: false, internalApiKey: INTERNAL });
});
afterAll(() => t.sandbox.stop());

type Row = { day: string; channel: string; event: string; cnt: number };
const url = (q: Record<string, string>) => `/v1/analytics/comms/delivery-events?${new URLSearchParams(q)}`;
const get = (q: Record<string, string>, key?: string) => t.request('GET', url(q), key ? { key } : {});

describe('GET /v1/analytics/comms/delivery-events (Analytics)', () => {
  it('answers a bare array of {day, channel, event, cnt}, from and to inclusive, matching the stored counts', async () => {
    const res = await get({ from: '2026-01-10', to: '2026-01-12', workspaceId: t.liveWorkspaceId });
    expect(res.statusCode).toBe(200);
    const rows = res.json() as Row[];
    expect(Array.isArray(rows)).toBe(true);
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(['channel', 'cnt', 'day', 'event']);
    expect(new Set(rows.map((r) => r.day))).toEqual(new Set(['2026-01-10', '2026-01-11', '2026-01-12']));
    const stored = (await exported<Row>(t, t.liveWorkspaceId, 'deliveryEvents')).filter((r) => r.day >= '2026-01-10' && r.day <= '2026-01-12');
    expect(rows).toHaveLength(stored.length);
    const sum = (list: Row[]) => list.reduce((n, r) => n + r.cnt, 0);
    expect(sum(rows)).toBe(sum(stored));
    expect(rows.some((r) => r.channel === 'email' && r.event === 'delivered')).toBe(true);
  });

  it('a single day works; a range without data is an empty array; the bare UUID workspaceId is accepted', async () => {
    const one = (await get({ from: '2026-01-15', to: '2026-01-15', workspaceId: t.liveWorkspaceId })).json() as Row[];
    expect(one.length).toBeGreaterThan(0);
    for (const r of one) expect(r.day).toBe('2026-01-15');
    expect((await get({ from: '2020-01-01', to: '2020-01-31', workspaceId: t.liveWorkspaceId })).json()).toEqual([]);
    const bare = t.liveWorkspaceId.replace(/^wksp_/, '');
    expect((await get({ from: '2026-01-15', to: '2026-01-15', workspaceId: bare })).json()).toEqual(one);
  });

  it.each([
    [{}, 'from, to, workspaceId'],
    [{ to: '2026-01-02', workspaceId: 'x' }, 'from'],
    [{ from: '2026-01-01', workspaceId: 'x' }, 'to'],
    [{ from: '2026-01-01', to: '2026-01-02' }, 'workspaceId'],
    [{ from: '', to: '2026-01-02' }, 'from, workspaceId'],
  ])('missing parameters %j -> 400 {error} naming %s', async (query, names) => {
    const res = await get(query as Record<string, string>);
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(Object.keys(body)).toEqual(['error']);
    expect(body.error).toMatch(new RegExp(`: ${names}$`));
  });

  it.each([
    ['a malformed from', { from: '15/01/2026', to: '2026-01-15' }, /from/],
    ['an impossible date', { from: '2026-02-30', to: '2026-03-01' }, /from/],
    ['a malformed to', { from: '2026-01-01', to: 'today' }, /to/],
    ['from after to', { from: '2026-01-15', to: '2026-01-14' }, /after/],
    ['a workspaceId that is not a uuid', { from: '2026-01-01', to: '2026-01-02', workspaceId: 'nope' }, /workspaceId/],
  ])('%s -> 400 {error, code}', async (_name, query, message) => {
    const res = await get({ workspaceId: t.liveWorkspaceId, ...query });
    expect(res.statusCode).toBe(400);
    expect(Object.keys(res.json())).toEqual(['error', 'code']);
    expect(res.json().code).toMatch(/^INVALID_(DATE|DATE_RANGE|ID)$/);
    expect(res.json().error).toMatch(message);
  });

  it('a range over 366 days is answered with an INFERRED_LIMIT warning: the description gives from and to with no limit', async () => {
    const res = await get({ workspaceId: t.liveWorkspaceId, from: '2024-01-01', to: '2026-01-01' });
    expect(res.statusCode).toBe(200);
    expect(Array.isArray(res.json())).toBe(true);
    expect(res.headers['x-sandbox-warning']).toBe('INFERRED_LIMIT: the range is 732 days, the sandbox infers at most 366 per request');
  });

  it("another workspace's id, known or not, -> 403 and never its data", async () => {
    const q = { from: '2026-01-01', to: '2026-01-15' };
    expect((await get({ ...q, workspaceId: t.sandboxWorkspaceId })).json()).toEqual({ error: 'Forbidden' });
    expect((await get({ ...q, workspaceId: '00000000-0000-4000-8000-000000000000' })).statusCode).toBe(403);
    expect((await get({ ...q, workspaceId: t.sandboxWorkspaceId }, KEYS.sandboxFull)).statusCode).toBe(200);
  });

  it('needs analytics:read: 403 for a products:read key, 200 for an analytics:read key; 401 without a key', async () => {
    const q = { from: '2026-01-01', to: '2026-01-02', workspaceId: t.liveWorkspaceId };
    expect((await get(q, KEYS.liveRead)).json()).toEqual({ error: 'Forbidden' });
    const scoped = await t.request('POST', `/__sandbox/workspaces/${t.liveWorkspaceId}/keys`, { key: null, body: { scopes: ['analytics:read'] } });
    expect((await get(q, scoped.json().data.key)).statusCode).toBe(200);
    expect((await t.request('GET', url(q), { key: null })).json()).toEqual({ error: 'Unauthorized' });
  });

  it('internal service keys work with x-workspace-id (Authentication 6) and see only that workspace', async () => {
    const q = { from: '2026-01-15', to: '2026-01-15' };
    const headers = { 'x-workspace-id': t.sandboxWorkspaceId };
    const res = await t.request('GET', url({ ...q, workspaceId: t.sandboxWorkspaceId }), { key: INTERNAL, headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual((await get({ ...q, workspaceId: t.sandboxWorkspaceId }, KEYS.sandboxFull)).json());
    expect((await t.request('GET', url({ ...q, workspaceId: t.liveWorkspaceId }), { key: INTERNAL, headers })).statusCode).toBe(403);
    expect((await t.request('GET', url({ ...q, workspaceId: t.liveWorkspaceId }), { key: INTERNAL })).statusCode).toBe(400);
  });

  it("counts the sandbox's own sends: a verification SMS adds sent and delivered for today", async () => {
    const q = { from: '2026-01-15', to: '2026-01-15', workspaceId: t.liveWorkspaceId };
    const count = (rows: Row[], channel: string, event: string) => rows.find((r) => r.channel === channel && r.event === event)?.cnt ?? 0;
    const before = (await get(q)).json() as Row[];
    expect((await t.request('POST', '/v1/verify/sms/start', { body: { phone: '+15551230001' } })).statusCode).toBe(200);
    expect((await t.request('POST', '/v1/verify/email/start', { body: { email: 'undeliverable@example.test' } })).statusCode).toBe(422);
    const after = (await get(q)).json() as Row[];
    expect(count(after, 'sms', 'sent')).toBe(count(before, 'sms', 'sent') + 1);
    expect(count(after, 'sms', 'delivered')).toBe(count(before, 'sms', 'delivered') + 1);
    expect(count(after, 'email', 'sent')).toBe(count(before, 'email', 'sent') + 1);
    expect(count(after, 'email', 'bounced')).toBe(count(before, 'email', 'bounced') + 1);
    expect(count(after, 'email', 'delivered')).toBe(count(before, 'email', 'delivered'));
  });
});
