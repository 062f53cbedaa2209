import { describe, expect, it } from 'vitest';
import { json, useSandbox } from './harness.ts';

/** A key's id is printed beside the key, for the commands that take an id. */
const t = useSandbox();

describe('key ids beside keys', () => {
  it('workspace create prints each key with its id, in JSON and for people', async () => {
    const created = json(await t.cli(['workspace', 'create', '--name', 'Ids', '--json']));
    expect(created.keys.length).toBeGreaterThan(0);
    for (const k of created.keys) expect(k).toMatchObject({ id: expect.stringMatching(/^wkey_/), key: expect.stringMatching(/^tcs_/) });

    const human = await t.cli(['workspace', 'create', '--name', 'Ids too']);
    const keyLines = human.stdout.split('\n').filter((line) => line.trim().startsWith('tcs_'));
    expect(keyLines.length).toBeGreaterThan(0);
    for (const line of keyLines) expect(line).toMatch(/^ {2}tcs_\S+ {2}wkey_\S+ {2}/);
    const [key, id] = keyLines[0]!.trim().split(/\s+/);
    const revoked = await t.cli(['keys', 'revoke', id!]);
    expect(revoked.code).toBe(0);
    expect((await t.api('GET', '/v1/products?limit=1', key!)).status).toBe(401);
  });

  it('keys create --json gives the id beside the key', async () => {
    const created = json(await t.cli(['keys', 'create', '--name', 'ci', '--json']));
    expect(created).toMatchObject({ id: expect.stringMatching(/^wkey_/), key: expect.stringMatching(/^tcs_/) });
  });
});
