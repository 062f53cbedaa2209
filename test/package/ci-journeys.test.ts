import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from '../../src/cli/lifecycle.ts';
import { sh } from '../docs/run.ts';
import { installedProject, root } from './packed.ts';

/**
 * CI journeys, as a new user takes them: the packed tarball in a
 * fresh project (`npm init -y`, then `npm pkg set type=module` as the README
 * says), the README's Vitest and Jest recipes copied in as they are, run by
 * `npx sandbox exec --workers 4 --report ... --report-format junit`. The
 * report must count the recipes' requests (their global setup reuses exec's
 * sandbox) and each worker must use the workspace exec made for it. A run
 * that reaches /v1 not once fails under --report. The Vitest recipe runs
 * once more against `sandbox start --detach` (`SANDBOX_URL=… npx vitest run`,
 * then `sandbox stop --report`), a CI job that does not use exec.
 */
let work: string;
let project: string;

/** One more test file per recipe, so that 4 files keep the 4 workers busy: it checks the worker's key is exec's. */
const VITEST_KEY_CHECK = `import { expect, it } from 'vitest';

it('uses the workspace sandbox exec made for this worker', () => {
  expect(process.env.SANDBOX_API_KEY).toBe(process.env[\`SANDBOX_API_KEY_\${process.env.VITEST_POOL_ID}\`]);
});
`;
const JEST_KEY_CHECK = `test('uses the workspace sandbox exec made for this worker', () => {
  expect(process.env.SANDBOX_API_KEY).toBe(process.env[\`SANDBOX_API_KEY_\${process.env.JEST_WORKER_ID}\`]);
});
`;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tcs-journeys-'));
  // `npm init -y`, `npm pkg set type=module`, then the tarball, vitest and jest installed
  ({ project } = await installedProject(work));
  cpSync(join(root, 'examples', 'parallel-workers'), join(project, 'vt'), { recursive: true });
  cpSync(join(root, 'examples', 'jest-workers'), join(project, 'jt'), { recursive: true });
  writeFileSync(join(project, 'vt', 'worker-key.test.ts'), VITEST_KEY_CHECK);
  writeFileSync(join(project, 'jt', 'worker-key.test.mjs'), JEST_KEY_CHECK);
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** The stderr summary's first line says how many /v1 requests the run made. */
const requestsOf = (output: string): number => Number(/sandbox: (\d+) requests? to \/v1/.exec(output)?.[1] ?? NaN);

/** The JUnit test cases that were run (not skipped), by operationId. */
function calledOperations(xml: string): string[] {
  return [...xml.matchAll(/<testcase classname="sandbox\.v1" name="(\w+) \([^"]*\)">(?!<skipped)/g)].map((m) => m[1]!).sort();
}

const RECIPE_OPERATIONS = ['createBooking', 'createWebhooksSubscription', 'getBooking', 'listProducts'];

// an install, then test runners with 4 workers each on a busy 2-core machine: minutes, not seconds
describe('CI journeys from the packed tarball', { timeout: 300_000 }, () => {
  it('the Vitest recipe under `sandbox exec --workers 4 --report`: the report counts its requests, the JUnit file names its operations', async () => {
    const summary = join(work, 'vitest-summary.md');
    const { code, output } = await sh(
      'npx sandbox exec --workers 4 --no-rate-limits --report vt-report.xml --report-format junit --fail-on-warning --allow-warning UNDOCUMENTED_ENDPOINT -- npx vitest run --config vt/vitest.config.ts',
      project,
      { GITHUB_STEP_SUMMARY: summary },
    );
    expect(code, output).toBe(0);
    expect(output).toMatch(/Test Files\s+4 passed \(4\)/);
    expect(requestsOf(output), output).toBeGreaterThanOrEqual(100);
    expect(calledOperations(readFileSync(join(project, 'vt-report.xml'), 'utf8'))).toEqual(RECIPE_OPERATIONS);
    expect(readFileSync(summary, 'utf8')).toMatch(/\| `createBooking` POST \/v1\/bookings \| 30 \| 201 ×30 \|/);
  });

  it('the Jest recipe, the same way', async () => {
    const { code, output } = await sh(
      'NODE_OPTIONS=--experimental-vm-modules npx sandbox exec --workers 4 --no-rate-limits --report jt-report.xml --report-format junit -- npx jest --config jt/jest.config.js',
      project,
      { GITHUB_STEP_SUMMARY: '' },
    );
    expect(code, output).toBe(0);
    expect(output).toMatch(/Tests:\s+4 passed, 4 total/);
    expect(requestsOf(output), output).toBeGreaterThanOrEqual(100);
    expect(calledOperations(readFileSync(join(project, 'jt-report.xml'), 'utf8'))).toEqual(RECIPE_OPERATIONS);
  });

  it('the Vitest recipe against `sandbox start --detach`: `SANDBOX_URL=… npx vitest run`, then `sandbox stop`', async () => {
    // a CI job that is not exec: the sandbox runs between two commands
    const started = await sh('npx sandbox start --detach --port 0 --in-memory --no-rate-limits --json', project);
    expect(started.code, started.output).toBe(0);
    const ready = JSON.parse(started.output.split('\n').find((line) => line.startsWith('{'))!) as { url: string; pid: number };
    try {
      // the recipe's own test files; worker-key.test.ts checks exec's per-worker keys, which only exec makes
      const tests = await sh('npx vitest run --config vt/vitest.config.ts bookings clock rate-limits', project, { SANDBOX_URL: ready.url });
      expect(tests.code, tests.output).toBe(0);
      expect(tests.output).toMatch(/Test Files\s+3 passed \(3\)/);
      const stopped = await sh(`npx sandbox stop --url ${ready.url} --report detached-report.json`, project);
      expect(stopped.code, stopped.output).toBe(0);
      expect(stopped.output).toContain('has exited; its data is flushed');
      expect(isRunning(ready.pid)).toBe(false);
      // the recipe's global setup used the detached sandbox rather than one of its own
      const report = JSON.parse(readFileSync(join(project, 'detached-report.json'), 'utf8')) as {
        requests: number;
        operations: { operationId: string | null }[];
      };
      expect(report.requests).toBeGreaterThanOrEqual(100);
      expect(report.operations.map((o) => o.operationId).sort()).toEqual(RECIPE_OPERATIONS);
    } finally {
      if (isRunning(ready.pid)) process.kill(ready.pid, 'SIGKILL');
    }
  });

  it('a run that sends no request to /v1 fails under --report, saying why', async () => {
    const { code, output } = await sh('npx sandbox exec --report empty.xml --report-format junit -- node -e "console.log(\'all tests passed\')"', project, {
      GITHUB_STEP_SUMMARY: '',
    });
    expect(output).toContain('all tests passed');
    expect(output).toContain('sandbox: the command sent 0 requests to /v1');
    expect(code, output).toBe(1);
  });
});
