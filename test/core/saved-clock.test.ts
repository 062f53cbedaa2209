import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { SandboxOptions } from '../../src/config.ts';
import { Clock, type ClockChange } from '../../src/core/clock.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';
import { exported, issueKey, orgOf } from '../http/areas/helpers.ts';

/**
 * The clock is state: a start on a database file puts the clock
 * back where it was (docs/storage.md, "The clock is saved"), so records are
 * never dated ahead of it, an expired key stays expired and jobs fall due on
 * the clock they were scheduled on.
 */
const DAY = 86_400_000;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function databaseFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tcs-clock-'));
  dirs.push(dir);
  return join(dir, 'db.json');
}

/** Runs `use` on a sandbox over `storage`, then stops it (a clean stop: the kill -9 case is test/chaos/clock-kill9.test.ts). */
async function on<T>(storage: string, options: SandboxOptions, use: (t: TestSandbox) => Promise<T>): Promise<T> {
  const t = await testSandbox({ storage, fsync: false, enforceRateLimits: false, ...options });
  try {
    return await use(t);
  } finally {
    await t.sandbox.stop();
  }
}

const setClock = (t: TestSandbox, at: string) => t.request('POST', '/__sandbox/clock/set', { key: null, body: { at } });
const products = (t: TestSandbox, key: string) => t.request('GET', '/v1/products?limit=1', { key });
type File = { id: string; status: string };
const galleryFile = (t: TestSandbox, id: string) => t.sandbox.store.get<File>('galleryFiles', t.liveWorkspaceId, id);

describe('a real clock advanced 3 days, restarted on the same file', () => {
  it('keeps its offset; an expired org key stays 401; a deletion job due on the advanced clock runs on it', async () => {
    const storage = databaseFile();
    const real = { clock: 'real', galleryDeletionDelayMs: 600_000 } as const;
    const before = await on(storage, real, async (t) => {
      expect(t.sandbox.clockOrigin).toMatchObject({ source: 'fresh', savedMode: null, offsetMs: 0, discarded: false }); // a new file
      const org = await orgOf(t, t.liveWorkspaceId);
      const partner = await issueKey(t, org, { scopes: ['products:read'], expiresAt: new Date(t.sandbox.clock.now() + DAY).toISOString() });
      expect((await products(t, partner.key)).statusCode).toBe(200);
      await t.request('POST', '/__sandbox/clock/advance', { key: null, body: { ms: 3 * DAY } });
      expect((await products(t, partner.key)).statusCode).toBe(401);
      const file = (await exported<File>(t, t.liveWorkspaceId, 'galleryFiles'))[0]!;
      expect((await t.request('DELETE', `/v1/gallery/files/${file.id}`)).statusCode).toBe(202); // due in 10 min of the advanced clock
      return { key: partner.key, fileId: file.id };
    });

    await on(storage, real, async (t) => {
      expect(t.sandbox.clock.now() - Date.now()).toBeGreaterThan(3 * DAY - 60_000);
      expect(t.sandbox.clock.now() - Date.now()).toBeLessThan(3 * DAY + 60_000);
      expect(t.sandbox.clockOrigin).toMatchObject({ source: 'restored', mode: 'real', savedMode: 'real' });
      expect(t.sandbox.clockOrigin.offsetMs).toBeGreaterThan(3 * DAY - 60_000);
      expect((await products(t, before.key)).statusCode).toBe(401);
      expect(galleryFile(t, before.fileId)?.status).toBe('deleting');
      await t.sandbox.clock.advance(600_000);
      expect(galleryFile(t, before.fileId)).toBeUndefined();
    });
  });
});

describe('a manual clock, restarted on the same file', () => {
  it('comes back at the time it was set to, and an expired org key stays 401', async () => {
    const storage = databaseFile();
    const key = await on(storage, {}, async (t) => {
      const org = await orgOf(t, t.liveWorkspaceId);
      const partner = await issueKey(t, org, { scopes: ['products:read'], expiresAt: '2026-01-16T09:00:00.000Z' });
      expect((await setClock(t, '2026-01-17T09:00:00.000Z')).statusCode).toBe(200);
      expect((await products(t, partner.key)).statusCode).toBe(401);
      return partner.key;
    });
    await on(storage, {}, async (t) => {
      expect(t.sandbox.clock.iso()).toBe('2026-01-17T09:00:00.000Z');
      expect(t.sandbox.clockOrigin).toMatchObject({ source: 'restored', mode: 'manual', now: '2026-01-17T09:00:00.000Z', overrodeStart: false });
      expect((await products(t, key)).statusCode).toBe(401);
    });
  });

  it('wins over an earlier --clock-start (and says so); a later one moves it on; --fresh-clock starts afresh and saves that', async () => {
    const storage = databaseFile();
    await on(storage, {}, async (t) => void (await setClock(t, '2026-01-17T09:00:00.000Z')));
    await on(storage, { clockStart: '2026-01-10T00:00:00.000Z' }, async (t) => {
      expect(t.sandbox.clock.iso()).toBe('2026-01-17T09:00:00.000Z');
      expect(t.sandbox.clockOrigin).toMatchObject({ source: 'restored', overrodeStart: true });
    });
    await on(storage, { clockStart: '2026-02-01T00:00:00.000Z' }, async (t) => {
      expect(t.sandbox.clock.iso()).toBe('2026-02-01T00:00:00.000Z');
      expect(t.sandbox.clockOrigin.source).toBe('configured-later');
    });
    await on(storage, {}, async (t) => expect(t.sandbox.clock.iso()).toBe('2026-02-01T00:00:00.000Z'));
    await on(storage, { freshClock: true }, async (t) => {
      expect(t.sandbox.clock.iso()).toBe('2026-01-15T09:00:00.000Z');
      expect(t.sandbox.clockOrigin).toMatchObject({ source: 'fresh', discarded: true });
    });
    await on(storage, {}, async (t) => expect(t.sandbox.clock.iso()).toBe('2026-01-15T09:00:00.000Z'));
  });

  it('a rewind is saved; a reset gives a fresh clock and saves it', async () => {
    const storage = databaseFile();
    await on(storage, {}, async (t) => {
      await setClock(t, '2026-01-20T00:00:00.000Z');
      await setClock(t, '2026-01-18T00:00:00.000Z'); // back: a manual clock may
    });
    await on(storage, {}, async (t) => {
      expect(t.sandbox.clock.iso()).toBe('2026-01-18T00:00:00.000Z');
      expect((await t.request('POST', '/__sandbox/reset', { key: null })).statusCode).toBe(200);
    });
    await on(storage, {}, async (t) => {
      expect(t.sandbox.clock.iso()).toBe('2026-01-15T09:00:00.000Z');
      expect(t.sandbox.clockOrigin.source).toBe('restored');
    });
  });

  it('an imported state keeps the running clock, whatever clock rows it holds', async () => {
    const storage = databaseFile();
    await on(storage, {}, async (t) => {
      await setClock(t, '2026-01-17T09:00:00.000Z');
      const state = (await t.request('GET', '/__sandbox/state', { key: null })).json();
      expect(state.collections.clocks._global.sandbox).toMatchObject({ mode: 'manual', now: '2026-01-17T09:00:00.000Z' });
      await setClock(t, '2026-01-18T09:00:00.000Z');
      expect((await t.request('PUT', '/__sandbox/state', { key: null, body: state })).statusCode).toBe(200);
      expect(t.sandbox.clock.iso()).toBe('2026-01-18T09:00:00.000Z');
    });
    await on(storage, {}, async (t) => expect(t.sandbox.clock.iso()).toBe('2026-01-18T09:00:00.000Z'));
  });

  it("keeps a created workspace's own advance, and forgets it with the workspace", async () => {
    const storage = databaseFile();
    const id = await on(storage, {}, async (t) => {
      const created = (await t.request('POST', '/__sandbox/workspaces', { key: null, body: {} })).json().data;
      await t.request('POST', `/__sandbox/workspaces/${created.id}/clock/advance`, { key: null, body: { ms: 3_600_000 } });
      return created.id as string;
    });
    await on(storage, {}, async (t) => {
      expect(t.sandbox.clock.stateOf(id)).toMatchObject({ offsetMs: 3_600_000, now: '2026-01-15T10:00:00.000Z' });
      expect(t.sandbox.clockOrigin.workspaces).toBe(1);
      expect((await t.request('DELETE', `/__sandbox/workspaces/${id}`, { key: null })).statusCode).toBe(200);
      expect(t.sandbox.store.get('clocks', '_global', id)).toBeUndefined();
    });
  });
});

describe('Clock.saveWith', () => {
  it('hands the time a move ends at to the saver before any due timer runs, and answers once it is saved', async () => {
    const clock = new Clock('manual', 0);
    const log: string[] = [];
    let saved: () => void = () => undefined;
    clock.saveWith((changes: readonly ClockChange[]) => {
      log.push(`save ${changes.map((c) => (c.workspaceId === null ? `global@${c.nowMs}` : `${c.workspaceId}+${c.offsetMs}`)).join(',')}`);
      return new Promise<void>((resolve) => (saved = resolve));
    });
    clock.schedule(100, () => log.push(`timer@${clock.now()}`));
    let answered = false;
    const move = clock.advance(1_000).then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(log).toEqual(['save global@1000', 'timer@100']); // a record the timer dates at 100 is journaled after the 1000 saved
    expect(answered).toBe(false); // not before the save is durable
    saved();
    await move;
    const workspace = clock.advanceWorkspace('ws_1', 500);
    saved();
    await workspace;
    const rewind = clock.rewindTo(200);
    saved();
    await rewind;
    expect(log.slice(2)).toEqual(['save ws_1+500', 'save global@200']);
  });

  it('restore puts back the global time and each workspace advance; changes() gives them to save', () => {
    const clock = new Clock('manual', 0);
    clock.restore({ atMs: 5_000 }, [['ws_1', 60_000]]);
    expect(clock.now()).toBe(5_000);
    expect(clock.nowIn('ws_1')).toBe(65_000);
    expect(clock.changes()).toEqual([
      { workspaceId: null, mode: 'manual', nowMs: 5_000, offsetMs: 0 },
      { workspaceId: 'ws_1', offsetMs: 60_000 },
    ]);
    const real = new Clock('real', undefined, () => 1_000_000);
    real.restore({ wallOffsetMs: 3 * DAY }, []);
    expect(real.now()).toBe(1_000_000 + 3 * DAY);
    expect(real.changes()[0]).toEqual({ workspaceId: null, mode: 'real', nowMs: 1_000_000 + 3 * DAY, offsetMs: 3 * DAY });
    real.dispose();
  });
});
