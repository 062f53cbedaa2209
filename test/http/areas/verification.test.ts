import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEYS, testSandbox, type TestSandbox } from '../../helpers/sandbox.ts';

let t: TestSandbox;
beforeEach(async () => {
  t = await testSandbox({ enforceRateLimits: false });
});
afterEach(() => t.sandbox.stop());

type View = { id: string; workspaceId: string; channel: string; target: string; code: string; status: string; attempts: number; expiresAt: string };
const PHONE = '+14155550123';
const EMAIL = 'traveller@example.com';
const post = (path: string, body: unknown, key?: string) => t.request('POST', `/v1/verify/${path}`, { body, ...(key ? { key } : {}) });
async function codes(target: string): Promise<View[]> {
  const res = await t.request('GET', `/__sandbox/verifications?target=${encodeURIComponent(target)}`, { key: null });
  expect(res.statusCode).toBe(200);
  return res.json().data;
}
const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('POST /v1/verify/sms/start and /sms/confirm (Verification)', () => {
  it('sends a 6-digit code, answers {ok, expiresAt} (10 min) without the code; the right code confirms once', async () => {
    const res = await post('sms/start', { phone: PHONE });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, expiresAt: '2026-01-15T09:10:00.000Z' }); // the clock stands at 09:00:00; ten minutes on
    const [latest] = await codes(PHONE);
    expect(latest).toMatchObject({ channel: 'sms', target: PHONE, status: 'pending', workspaceId: t.liveWorkspaceId, expiresAt: res.json().expiresAt });
    expect(latest!.code).toMatch(/^\d{6}$/);
    expect(res.body).not.toContain(latest!.code);
    const ok = await post('sms/confirm', { phone: PHONE, code: latest!.code });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true });
    expect((await codes(PHONE))[0]!.status).toBe('verified');
    const reused = await post('sms/confirm', { phone: PHONE, code: latest!.code });
    expect(reused.json()).toEqual({ error: 'Invalid verification code', code: 'INVALID_CODE' });
  });

  it('stores a hash next to the sandbox-only code; the export strips the hash', async () => {
    await post('sms/start', { phone: PHONE });
    const [view] = await codes(PHONE);
    const row = t.sandbox.store.get<{ id: string; codeHash: string }>('verifications', t.liveWorkspaceId, view!.id)!;
    expect(row.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.codeHash).not.toContain(view!.code);
    const exported = (await t.request('GET', `/__sandbox/workspaces/${t.liveWorkspaceId}/export`, { key: null })).json().data.verifications;
    expect(exported[0]).not.toHaveProperty('codeHash');
  });

  it.each(['4155550123', '+0123456789', '+1', 'phone', '+1 415 abc 0123'])('phone %s is not in international format -> 400 VALIDATION_400', async (phone) => {
    const res = await post('sms/start', { phone });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('VALIDATION_400');
  });

  it('a wrong code -> 400 invalid_code; the 5th wrong attempt and every later one -> too_many_attempts, even with the right code', async () => {
    await post('sms/start', { phone: PHONE });
    const [{ code }] = (await codes(PHONE)) as [View];
    for (let i = 1; i <= 4; i++) {
      const res = await post('sms/confirm', { phone: PHONE, code: wrong(code) });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('INVALID_CODE');
    }
    const fifth = await post('sms/confirm', { phone: PHONE, code: wrong(code) });
    expect(fifth.statusCode).toBe(400);
    expect(fifth.json().code).toBe('TOO_MANY_ATTEMPTS');
    expect((await post('sms/confirm', { phone: PHONE, code })).json().code).toBe('TOO_MANY_ATTEMPTS');
    expect((await codes(PHONE))[0]).toMatchObject({ status: 'failed', attempts: 5 });
  });

  it('four wrong attempts still leave the right code usable', async () => {
    await post('sms/start', { phone: PHONE });
    const [{ code }] = (await codes(PHONE)) as [View];
    for (let i = 0; i < 4; i++) await post('sms/confirm', { phone: PHONE, code: wrong(code) });
    expect((await post('sms/confirm', { phone: PHONE, code })).statusCode).toBe(200);
  });

  it('expires after 10 minutes on the sandbox clock -> 400 code_expired', async () => {
    await post('sms/start', { phone: PHONE });
    const [{ code }] = (await codes(PHONE)) as [View];
    await t.sandbox.clock.advance(600_000);
    const res = await post('sms/confirm', { phone: PHONE, code });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: expect.stringMatching(/expired/), code: 'CODE_EXPIRED' });
    expect((await codes(PHONE))[0]!.status).toBe('expired');
  });

  it('the code still works just before expiry', async () => {
    await post('sms/start', { phone: PHONE });
    const [{ code }] = (await codes(PHONE)) as [View];
    await t.sandbox.clock.advance(599_999);
    expect((await post('sms/confirm', { phone: PHONE, code })).statusCode).toBe(200);
  });

  it('a resend within 30 s is sent with an INFERRED_LIMIT warning (the description states no resend limit); it issues a new code and invalidates the old one', async () => {
    await post('sms/start', { phone: PHONE });
    await t.sandbox.clock.advance(10_000);
    const early = await post('sms/start', { phone: PHONE });
    expect(early.statusCode).toBe(200);
    expect(early.headers['x-sandbox-warning']).toBe('INFERRED_LIMIT: a code was sent to this number 10 s ago, the sandbox infers one send per 30 s');
    await t.sandbox.clock.advance(20_000);
    const resend = await post('sms/start', { phone: PHONE });
    expect(resend.statusCode).toBe(200);
    const [fresh, old] = (await codes(PHONE)) as [View, View];
    expect(old.status).toBe('superseded');
    expect(fresh.status).toBe('pending');
    if (old.code !== fresh.code) expect((await post('sms/confirm', { phone: PHONE, code: old.code })).json().code).toBe('INVALID_CODE');
    expect((await post('sms/confirm', { phone: PHONE, code: fresh.code })).statusCode).toBe(200);
  });

  it('confirming with nothing pending -> 400 invalid_code; a code of the wrong shape -> 400 VALIDATION_400', async () => {
    expect((await post('sms/confirm', { phone: '+14155550999', code: '123456' })).json().code).toBe('INVALID_CODE');
    expect((await post('sms/confirm', { phone: PHONE, code: '12345' })).json().code).toBe('VALIDATION_400');
    expect((await post('sms/confirm', { phone: PHONE })).json().code).toBe('VALIDATION_400');
  });

  it('test numbers: +15005550001 -> 400 invalid_number (nothing sent); +15005550009 -> 422 undeliverable', async () => {
    const invalid = await post('sms/start', { phone: '+15005550001' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().code).toBe('INVALID_NUMBER');
    expect(await codes('+15005550001')).toEqual([]);
    const undeliverable = await post('sms/start', { phone: '+15005550009' });
    expect(undeliverable.statusCode).toBe(422);
    expect(undeliverable.json().code).toBe('UNDELIVERABLE');
    const [sent] = await codes('+15005550009');
    expect(sent!.status).toBe('failed');
    expect((await post('sms/confirm', { phone: '+15005550009', code: sent!.code })).json().code).toBe('INVALID_CODE');
  });

  it('challenges are per workspace', async () => {
    await post('sms/start', { phone: PHONE });
    const [{ code }] = (await codes(PHONE)) as [View];
    expect((await post('sms/confirm', { phone: PHONE, code }, KEYS.sandboxFull)).json().code).toBe('INVALID_CODE');
    expect((await post('sms/start', { phone: PHONE }, KEYS.sandboxFull)).statusCode).toBe(200); // no cross-workspace cooldown
  });

  it('401 without a key; 403 without verification:write', async () => {
    expect((await t.request('POST', '/v1/verify/sms/start', { key: null, body: { phone: PHONE } })).statusCode).toBe(401);
    expect((await post('sms/start', { phone: PHONE }, KEYS.liveRead)).json()).toEqual({ error: 'Forbidden' });
    expect((await post('email/confirm', { email: EMAIL, code: '123456' }, KEYS.liveRead)).statusCode).toBe(403);
  });
});

describe('POST /v1/verify/email/start and /email/confirm', () => {
  it('sends a code and confirms it with {ok: true}; addresses are case-insensitive', async () => {
    const res = await post('email/start', { email: 'Traveller@Example.com' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, expiresAt: expect.any(String) });
    const [view] = await codes(EMAIL);
    expect(view).toMatchObject({ channel: 'email', target: EMAIL, status: 'pending' });
    const ok = await post('email/confirm', { email: EMAIL.toUpperCase(), code: view!.code });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ ok: true });
  });

  it('a wrong code -> 400 invalid_code; expired -> code_expired; five wrong -> too_many_attempts', async () => {
    await post('email/start', { email: EMAIL });
    const [{ code }] = (await codes(EMAIL)) as [View];
    expect((await post('email/confirm', { email: EMAIL, code: wrong(code) })).json()).toEqual({ error: 'Invalid verification code', code: 'INVALID_CODE' });
    for (let i = 0; i < 4; i++) await post('email/confirm', { email: EMAIL, code: wrong(code) });
    expect((await post('email/confirm', { email: EMAIL, code })).json().code).toBe('TOO_MANY_ATTEMPTS');
    await t.sandbox.clock.advance(30_000);
    await post('email/start', { email: EMAIL });
    const [fresh] = await codes(EMAIL);
    await t.sandbox.clock.advance(600_000);
    expect((await post('email/confirm', { email: EMAIL, code: fresh!.code })).json().code).toBe('CODE_EXPIRED');
  });

  it('bad addresses -> 400; undeliverable@example.test -> 422 undeliverable', async () => {
    expect((await post('email/start', { email: 'not-an-address' })).json().code).toBe('VALIDATION_400');
    expect((await post('email/start', {})).statusCode).toBe(400);
    expect((await post('email/confirm', { email: 'x', code: '123456' })).statusCode).toBe(400);
    const res = await post('email/start', { email: 'undeliverable@example.test' });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: expect.any(String), code: 'UNDELIVERABLE' });
  });
});

describe('GET /__sandbox/verifications', () => {
  it('lists the latest codes first with channel, target, code, expiresAt and status; filters by target', async () => {
    await post('sms/start', { phone: PHONE });
    await t.sandbox.clock.advance(1_000);
    await post('email/start', { email: EMAIL });
    const all = (await t.request('GET', '/__sandbox/verifications', { key: null })).json().data as View[];
    expect(all.map((v) => v.target)).toEqual([EMAIL, PHONE]);
    for (const v of all) expect(Object.keys(v)).toEqual(expect.arrayContaining(['channel', 'target', 'code', 'expiresAt', 'status']));
    expect(all[0]).not.toHaveProperty('codeHash');
    expect((await codes(PHONE)).map((v) => v.channel)).toEqual(['sms']);
    const sms = (await t.request('GET', '/__sandbox/verifications?channel=sms', { key: null })).json().data as View[];
    expect(sms.map((v) => v.target)).toEqual([PHONE]);
  });
});
