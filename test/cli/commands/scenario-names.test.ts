import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCENARIOS_DIR } from '../../../src/config.ts';
import { shownPath } from '../../../src/scenarios/load.ts';
import { runCliInProcess } from '../../helpers/cli-in-process.ts';
import { expectOneLineFailure } from './harness.ts';

/**
 * Shipped scenarios by name (docs/scenarios.md): in a project that installed the package they
 * live in node_modules, so `scenario validate scenarios/*.json` found nothing there. `validate`
 * takes their names as `run` does, `list` says where their files are from the working
 * directory, and a path that is not there says how to name them. The test runs from the clone,
 * where they are `scenarios/`; test/package/readme-journeys.test.ts runs the same from a project.
 */
describe('shipped scenarios by name', () => {
  it('`scenario validate <name...>` checks shipped scenarios by name, and prints where each file is', async () => {
    const r = await runCliInProcess(['scenario', 'validate', 'key-revocation', 'sandbox-rate-limit']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      'ok  scenarios/key-revocation.json  key-revocation, 13 steps',
      'ok  scenarios/sandbox-rate-limit.json  sandbox-rate-limit, 200 steps',
    ]);
  });

  it('`scenario list` ends with where the files are, as a path that works from here', async () => {
    const r = await runCliInProcess(['scenario', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n').at(-1)).toBe('files: scenarios/<name>.json; by name: sandbox scenario validate <name>, sandbox scenario run <name>');
  });

  it('a path that is not there is one line naming the scenarios by name, for validate and run alike', async () => {
    const missing = expectOneLineFailure(await runCliInProcess(['scenario', 'validate', 'nowhere/key-revocation.json']));
    expect(missing).toBe(
      'sandbox: nowhere/key-revocation.json: no such file; the scenarios of scenarios go by name: give key-revocation instead (sandbox scenario list shows them all)',
    );
    // what bash passes on when `scenarios/*.json` matches nothing (a project, where they are in node_modules)
    const pattern = expectOneLineFailure(await runCliInProcess(['scenario', 'run', 'nowhere/*.json']));
    expect(pattern).toBe(
      'sandbox: nowhere/*.json: no file matches it (the shell left the pattern as written); the scenarios of scenarios go by name: give booking-lifecycle-webhooks instead (sandbox scenario list shows them all)',
    );
    expect(expectOneLineFailure(await runCliInProcess(['scenario', 'validate', 'nope']))).toBe(
      'sandbox: no scenario "nope" in scenarios; run `sandbox scenario list`',
    );
  });

  it('a path is shown from the working directory when inside it, else whole', () => {
    const project = '/home/me/project';
    expect(shownPath(join(project, 'node_modules', 'travel-commerce-sandbox', 'scenarios'), project)).toBe('node_modules/travel-commerce-sandbox/scenarios');
    expect(shownPath('/opt/elsewhere/scenarios', project)).toBe('/opt/elsewhere/scenarios');
    expect(shownPath(DEFAULT_SCENARIOS_DIR)).toBe('scenarios');
  });
});
