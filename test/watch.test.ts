import { copyFile, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_FIXTURES_DIR } from '../src/config.ts';
import { createSandbox, type Sandbox } from '../src/index.ts';
import { watchSandbox, type WatchOptions } from '../src/watch.ts';
import { KEYS } from './helpers/sandbox.ts';

/** Polls until `check` passes; file events arrive in real time, so this waits for them (bounded). */
async function eventually(check: () => unknown | Promise<unknown>, deadlineMs = 30_000): Promise<void> {
  // a deadline in time, not 200 turns of 25 ms: turns stretch on a loaded machine
  for (const end = Date.now() + deadlineMs; ; ) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

/**
 * Throws unless the file holds `text`: its bytes searched as they are, the several-MB file neither
 * decoded nor printed into a failed assertion at each turn of a poll (that was most of this file's CPU).
 */
async function fileHolds(path: string, text: string): Promise<void> {
  if (!(await readFile(path)).includes(text)) throw new Error(`${path} does not hold ${JSON.stringify(text)} yet`);
}

let sandbox: Sandbox | undefined;
let stop: (() => Promise<void>) | undefined;
let folder: string | undefined;
afterEach(async () => {
  await stop?.();
  await sandbox?.stop();
  // each test's copy of the fixtures and its database (about 3 MB) would stay in the temp folder
  if (folder) await rm(folder, { recursive: true, force: true });
  stop = sandbox = folder = undefined;
});

async function setup(watchOptions: Pick<WatchOptions, 'compactWithinMs'> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'sbx-watch-'));
  folder = dir;
  const fixturesDir = join(dir, 'fixtures');
  await mkdir(fixturesDir);
  await mkdir(join(dir, 'scenarios'));
  for (const name of await readdir(DEFAULT_FIXTURES_DIR)) await copyFile(join(DEFAULT_FIXTURES_DIR, name), join(fixturesDir, name));
  const dbPath = join(dir, 'db.json');
  sandbox = await createSandbox({ listen: false, storage: dbPath, fixturesDir, clock: 'manual', enforceRateLimits: false });
  const logs: string[] = [];
  stop = await watchSandbox(sandbox, { scenariosDir: join(dir, 'scenarios'), log: (line) => logs.push(line), ...watchOptions });
  const api = (method: string, url: string, body?: unknown) =>
    sandbox!.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${KEYS.liveFull}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { payload: JSON.stringify(body) } : {}),
    });
  return { dir, fixturesDir, dbPath, logs, api, liveId: sandbox.workspaces.find((w) => w.mode === 'live')!.id };
}

describe('sandbox start --watch', () => {
  it('loads a hand edit of the database file and ignores its own writes', async () => {
    const { dbPath, logs, api, liveId } = await setup();
    const created = await api('POST', '/v1/forms', { name: 'Made while watching', fields: [] });
    expect(created.statusCode).toBe(201);
    // the journal is folded into the file shortly after a write, so a person sees everything
    await eventually(() => fileHolds(dbPath, 'Made while watching'));
    const db = JSON.parse(await readFile(dbPath, 'utf8'));
    const [id, product] = Object.entries(db.collections.products[liveId])[0] as [string, { title: string }];
    product.title = 'Edited by hand';
    await writeFile(dbPath, JSON.stringify(db));
    await eventually(async () => expect((await api('GET', `/v1/products/${id}`)).json().data.title).toBe('Edited by hand'));
    await eventually(() => expect(logs.some((l) => l.includes('db.json was edited; loaded'))).toBe(true));
    expect(logs.filter((l) => l.includes('was edited')).length).toBe(1);
    expect((await api('GET', `/__sandbox/workspaces/${liveId}/export`)).json().data.forms.some((f: { name: string }) => f.name === 'Made while watching')).toBe(
      true,
    );
  });

  it('under steady writes the journal is still folded into the file (within the bound: 2 s by default, 300 ms here), not only after a pause', async () => {
    // the bound itself, 2 s, on fake timers: test/watch-database.test.ts; here the mechanism, in real time
    const { dbPath, api } = await setup({ compactWithinMs: 300 });
    expect((await api('POST', '/v1/forms', { name: 'Marker under load', fields: [] })).statusCode).toBe(201);
    let writing = true;
    let written = 0;
    // eight writers, each starting its next write as soon as the last is acknowledged: never idle for 200 ms
    const writers = Array.from({ length: 8 }, async () => {
      while (writing) {
        const res = await api('POST', '/v1/forms', { name: `steady ${written++}`, fields: [] });
        if (res.statusCode !== 201) throw new Error(`write refused: ${res.statusCode} ${res.body}`);
      }
    });
    try {
      // before 15,000 more writes: the every-20,000-commits compaction is not what folded it
      const deadline = Date.now() + 30_000; // a bound on the wait, not a timing assertion
      while (!(await readFile(dbPath)).includes('Marker under load')) {
        if (written >= 15_000 || Date.now() > deadline) throw new Error(`db.json still lacks the marker after ${written} more writes`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    } finally {
      writing = false;
      await Promise.all(writers);
    }
    expect(written).toBeGreaterThan(0);
  }, 60_000);

  it('refuses, in one line, an edit of a stale copy that would roll writes back, and rewrites the file', async () => {
    const { dbPath, logs, api, liveId } = await setup();
    const stale = JSON.parse(await readFile(dbPath, 'utf8'));
    expect((await api('POST', '/v1/forms', { name: 'Made after the copy', fields: [] })).statusCode).toBe(201);
    await eventually(() => fileHolds(dbPath, 'Made after the copy'));
    const [id, product] = Object.entries(stale.collections.products[liveId])[0] as [string, { title: string }];
    product.title = 'Edited on a stale copy';
    await writeFile(dbPath, JSON.stringify(stale));
    await eventually(() =>
      expect(logs.some((l) => /db\.json not loaded, keeping the last good state: db\.json was edited from an older state \(seq \d+\)/.test(l))).toBe(true),
    );
    expect((await api('GET', `/v1/products/${id}`)).json().data.title).not.toBe('Edited on a stale copy');
    const forms = (await api('GET', `/__sandbox/workspaces/${liveId}/export`)).json().data.forms;
    expect(forms.some((f: { name: string }) => f.name === 'Made after the copy')).toBe(true);
    await eventually(() => fileHolds(dbPath, 'Made after the copy')); // the file holds everything again
  });

  it('a bad edit of the database file logs one line and keeps the last good state', async () => {
    const { dbPath, logs, api } = await setup();
    await writeFile(dbPath, '{"schemaVersion": 1, "collections": ');
    await eventually(() => expect(logs.some((l) => l.includes('not loaded, keeping the last good state'))).toBe(true));
    expect((await api('GET', '/v1/products?limit=1')).statusCode).toBe(200);
  });

  it('an edit whose rows do not pass their schema is refused in one line naming the row and the field; nothing changes', async () => {
    const { dbPath, logs, api, liveId } = await setup();
    await api('POST', '/v1/forms', { name: 'Before the bad edit', fields: [] });
    await eventually(() => fileHolds(dbPath, 'Before the bad edit'));
    const db = JSON.parse(await readFile(dbPath, 'utf8'));
    const [id, product] = Object.entries(db.collections.products[liveId])[0] as [string, { title: unknown }];
    product.title = 42;
    db.collections.products[liveId].bad = { id: 'bad', garbage: true };
    // saved as editors do (a temp file, then a rename): the watcher never reads half of it
    await writeFile(`${dbPath}.edit`, JSON.stringify(db));
    await rename(`${dbPath}.edit`, dbPath);
    await eventually(() => expect(logs.some((l) => l.includes('not loaded, keeping the last good state'))).toBe(true));
    const line = logs.find((l) => l.includes('not loaded'))!;
    expect(line).toMatch(/products row "(bad|[^"]+)".*(title|garbage|id)/);
    expect(line.split('\n')).toHaveLength(1);
    expect(typeof (await api('GET', `/v1/products/${id}`)).json().data.title).toBe('string');
    const exported = (await api('GET', `/__sandbox/workspaces/${liveId}/export`)).json().data;
    expect(exported.products.some((p: { id: string }) => p.id === 'bad')).toBe(false);
    expect(exported.forms.some((f: { name: string }) => f.name === 'Before the bad edit')).toBe(true);
  });

  it('re-seeds the catalog from edited fixtures and keeps runtime data', async () => {
    const { fixturesDir, logs, api, liveId } = await setup();
    await api('POST', '/v1/forms', { name: 'Runtime form', fields: [] });
    const file = join(fixturesDir, 'aurora-tours.json');
    const fixture = JSON.parse(await readFile(file, 'utf8'));
    const productId: string = fixture.products[0].id;
    fixture.products[0].title = 'Renamed in the fixture file';
    await writeFile(file, JSON.stringify(fixture, null, 2));
    await eventually(async () => expect((await api('GET', `/v1/products/${productId}`)).json().data.title).toBe('Renamed in the fixture file'));
    await eventually(() => expect(logs.some((l) => l.includes('catalog re-seeded'))).toBe(true));
    const forms = (await api('GET', `/__sandbox/workspaces/${liveId}/export`)).json().data.forms;
    expect(forms.some((f: { name: string }) => f.name === 'Runtime form')).toBe(true);

    fixture.workspace.keys[0].scopes = ['bad scope'];
    await writeFile(file, JSON.stringify(fixture));
    await eventually(() => expect(logs.some((l) => l.includes('fixtures not reloaded') && l.includes('aurora-tours.json'))).toBe(true));
    expect((await api('GET', `/v1/products/${productId}`)).json().data.title).toBe('Renamed in the fixture file');
  });
});
