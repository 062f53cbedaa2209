import { describe, expect, it } from 'vitest';
import { Clock } from '../../src/core/clock.ts';
import { testSandbox } from '../helpers/sandbox.ts';

const START = Date.UTC(2026, 0, 15, 9);

describe('workspace clocks (global time plus the workspace own advance)', () => {
  it('advancing one workspace moves its time and runs its timers only', async () => {
    const clock = new Clock('manual', START);
    const ran: string[] = [];
    clock.run('A', () => clock.schedule(START + 60_000, () => ran.push(`A@${clock.now() - START}`)));
    clock.schedule(START + 60_000, () => ran.push('B'), 'B');
    clock.schedule(START + 60_000, () => ran.push('global'));
    await clock.advanceWorkspace('A', 90_000);
    expect(ran).toEqual(['A@60000']);
    expect(clock.nowIn('A')).toBe(START + 90_000);
    expect(clock.nowIn('B')).toBe(START);
    expect(clock.now()).toBe(START);
    expect(clock.run('A', () => clock.iso())).toBe('2026-01-15T09:01:30.000Z'); // 09:00:00 and A's own 90 s
    await clock.advance(60_000);
    expect(ran).toEqual(['A@60000', 'B', 'global']);
    expect(clock.nowIn('A')).toBe(START + 150_000);
  });

  it('a global advance runs timers in the order they fall due in each workspace own time', async () => {
    const clock = new Clock('manual', START);
    const ran: string[] = [];
    await clock.advanceWorkspace('ahead', 30_000);
    clock.schedule(START + 50_000, () => ran.push('ahead'), 'ahead'); // due 20 s from now
    clock.schedule(START + 40_000, () => ran.push('global')); // due 40 s from now
    await clock.advance(25_000);
    expect(ran).toEqual(['ahead']);
    await clock.advance(25_000);
    expect(ran).toEqual(['ahead', 'global']);
  });

  it('a timer keeps the workspace it was scheduled under, and forget() drops a workspace with its timers', async () => {
    const clock = new Clock('manual', START);
    const seen: (string | null)[] = [];
    clock.run('A', () => clock.schedule(START + 1_000, () => seen.push(clock.current())));
    clock.schedule(START + 1_000, () => seen.push(clock.current()), 'gone');
    clock.forget('gone');
    expect(clock.stateOf('gone').pendingTimers).toBe(0);
    await clock.advance(1_000);
    expect(seen).toEqual(['A']);
  });
});

describe('background work on a workspace clock', () => {
  it('a gallery deletion job of a created workspace runs when that workspace reaches it, not when another advances', async () => {
    const t = await testSandbox({ enforceRateLimits: false });
    try {
      const [w, other] = [await t.sandbox.createWorkspace(), await t.sandbox.createWorkspace()];
      const file = t.sandbox.store.list<{ id: string; status: string }>('galleryFiles', w.id).find((f) => f.status === 'active')!;
      const res = await t.request('DELETE', `/v1/gallery/files/${file.id}`, { key: w.keys[0]!.key });
      expect(res.statusCode, res.body).toBeLessThan(300);
      expect(t.sandbox.clock.stateOf(w.id).pendingTimers).toBe(1);
      await other.advance(60_000);
      expect(t.sandbox.store.get('galleryFiles', w.id, file.id)).toMatchObject({ status: 'deleting' });
      await w.advance(30_000);
      expect(t.sandbox.store.get('galleryFiles', w.id, file.id)).toBeUndefined();
      expect(t.sandbox.store.get('galleryFiles', t.sandboxWorkspaceId, maskBack(file.id, w.id, t.sandboxWorkspaceId))).toMatchObject({ status: 'active' });
    } finally {
      await t.sandbox.stop();
    }
  });
});

/** the template's id of a copied row: the mask is the XOR of the two workspace ids' UUIDs */
function maskBack(id: string, workspaceId: string, templateId: string): string {
  const hex = (s: string) => s.slice(-36).replace(/-/g, '');
  const [a, b, x] = [hex(workspaceId), hex(templateId), hex(id)];
  let out = '';
  for (let i = 0; i < 32; i++) out += (parseInt(a[i]!, 16) ^ parseInt(b[i]!, 16) ^ parseInt(x[i]!, 16)).toString(16);
  const uuid = `${out.slice(0, 8)}-${out.slice(8, 12)}-${out.slice(12, 16)}-${out.slice(16, 20)}-${out.slice(20)}`;
  return `${id.slice(0, -36)}${uuid}`;
}

describe('sandbox.createWorkspace()', () => {
  it('returns a handle that advances, snapshots, restores, resets and deletes its own workspace', async () => {
    const t = await testSandbox();
    try {
      const w = await t.sandbox.createWorkspace({ name: 'from code' });
      expect(w).toMatchObject({ name: 'from code', mode: 'sandbox', url: '' });
      const key = w.keys[0]!.key;
      const start = await t.request('POST', '/v1/verify/email/start', { key, body: { email: 'code@example.com' } });
      expect(start.statusCode, start.body).toBe(200);
      await w.advance(3_600_000);
      expect(t.sandbox.clock.stateOf(w.id).offsetMs).toBe(3_600_000);
      expect(t.sandbox.clock.state().nowMs).toBe(t.sandbox.clock.nowIn(null));
      await w.snapshot('one-code');
      await w.reset();
      expect(t.sandbox.store.list('verifications', w.id)).toHaveLength(0);
      await w.restore('one-code');
      expect(t.sandbox.store.list('verifications', w.id)).toHaveLength(1);
      await w.delete();
      expect((await t.request('GET', '/v1/products?limit=1', { key })).statusCode).toBe(401);
      expect(t.sandbox.clock.stateOf(w.id).offsetMs).toBe(0);
    } finally {
      await t.sandbox.stop();
    }
  });
});
