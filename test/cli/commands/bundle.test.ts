import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readBundleFile } from '../../../src/bundle/file.ts';
import { harProblems } from '../../bundle/har-schema.ts';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { KEYS } from '../../helpers/sandbox.ts';
import { expectOneLineFailure, json, useSandbox } from './harness.ts';

/**
 * The failure bundle's commands against a running sandbox (docs/cli.md, "The failure bundle"):
 * `bundle save` writes what GET /__sandbox/bundle answers, `open --har` turns a bundle's requests
 * into HAR, `logs --har` a running sandbox's; `open` itself, `exec --bundle` and `start
 * --from-bundle` are the journey's (test/journeys/bundle.test.ts).
 */
const t = useSandbox();
const dir = mkdtempSync(join(tmpdir(), 'bundle-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('bundle save, open --har, logs --har', () => {
  it('bundle save writes the running sandbox’s bundle; open --har writes its requests as HAR 1.2', async () => {
    await t.api('GET', '/v1/products?limit=1', KEYS.sandboxFull);
    await t.api('GET', '/v1/bookings/book_00000000-0000-4000-8000-000000000009', KEYS.sandboxFull);
    const file = join(dir, 'saved.json.gz');
    const saved = await t.cli(['bundle', 'save', file]);
    expect(saved.code, saved.stderr).toBe(0);
    expect(saved.stdout).toMatch(
      new RegExp(`^Saved the bundle of http://127\\.0\\.0\\.1:\\d+ to ${file} \\([\\d.]+ [KM]i?B\\); open it with \`npx sandbox open ${file}\`\\n$`),
    );
    const bundle = await readBundleFile(file);
    expect(bundle.run).toBeNull();
    expect(bundle.sandbox.url).toBe(t.sandbox.url);
    expect(bundle.requests.entries.map((e) => e.status)).toEqual([200, 404]);

    const har = join(dir, 'from-bundle.har');
    const written = await runCliInProcess(['open', file, '--har', har]); // open runs no sandbox's --url: it serves one
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toBe(`Wrote 2 requests of ${file} to ${har} (HAR 1.2)\n`);
    const parsed = JSON.parse(readFileSync(har, 'utf8'));
    expect(harProblems(parsed)).toEqual([]);
    expect(parsed.log.entries[1]._reason).toMatch(/^NOT_FOUND /);
    expect(parsed.log.entries[1].request.url).toBe(`${t.sandbox.url}/v1/bookings/book_00000000-0000-4000-8000-000000000009`);
  });

  it('logs --har writes the log, or the requests the filters keep, oldest first; never with --follow', async () => {
    const har = join(dir, 'logs.har');
    const all = await t.cli(['logs', '--har', har, '--json']);
    expect(all.code, all.stderr).toBe(0);
    const parsed = JSON.parse(readFileSync(har, 'utf8'));
    expect(harProblems(parsed)).toEqual([]);
    expect(json(all)).toEqual({ har, entries: parsed.log.entries.length });
    expect(parsed.log.entries.map((e: { response: { status: number } }) => e.response.status).slice(0, 2)).toEqual([200, 404]);
    const failed = await t.cli(['logs', '--har', har, '--status', '4xx']);
    expect(failed.stdout).toMatch(/^Wrote \d+ requests? to /);
    expect(JSON.parse(readFileSync(har, 'utf8')).log.entries.every((e: { response: { status: number } }) => e.response.status >= 400)).toBe(true);
    expect(expectOneLineFailure(await t.cli(['logs', '--har', har, '--follow']))).toMatch(/--har writes the log as it is now; it does not follow/);
  });

  it('open refuses, in one line, a file that is not a bundle', async () => {
    const line = expectOneLineFailure(await runCliInProcess(['open', join(dir, 'none.json.gz'), '--har', join(dir, 'x.har')]));
    expect(line).toMatch(/cannot read the bundle .*none\.json\.gz: no such file/);
  });
});
