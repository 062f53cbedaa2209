import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.ts';
import { runCli } from '../helpers/cli.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';

/**
 * Every option of `start` and `exec` also comes from
 * SANDBOX_<OPTION>, a flag winning; the table in docs/configuration.md names
 * them all.
 */
const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (name.startsWith('SANDBOX_') && !(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

/** The options `sandbox <name> ...argv` parses to with `env` set, without running the command. */
async function parsed(name: 'start' | 'exec', argv: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  Object.assign(process.env, env);
  const program = buildProgram(name);
  const command = program.commands.find((c) => c.name() === name)!;
  let opts: Record<string, unknown> = {};
  command.action((...args: unknown[]) => {
    opts = (args.at(-1) as Command).opts();
  });
  await program.parseAsync(['node', 'sandbox', name, ...argv, ...(name === 'exec' ? ['--', 'true'] : [])]);
  return opts;
}

describe('SANDBOX_<OPTION>', () => {
  it('sets the options of start, with the flag winning over the variable and the variable over the default', async () => {
    const opts = await parsed('start', ['--seed', '7'], {
      SANDBOX_PORT: '4999',
      SANDBOX_DATA: 'ci/db.json',
      SANDBOX_CLOCK: 'manual',
      SANDBOX_NO_RATE_LIMITS: '1',
      SANDBOX_SEED: '3',
      SANDBOX_STOP_TIMEOUT: '10s',
      SANDBOX_ALLOWED_HOST: 'sandbox, sandbox.test',
      SANDBOX_STRICT: 'true',
    });
    expect(opts).toMatchObject({
      port: 4999,
      data: 'ci/db.json',
      clock: 'manual',
      rateLimits: false,
      seed: 7,
      stopTimeout: 10_000,
      allowedHost: ['sandbox', 'sandbox.test'],
      strict: true,
    });
  });

  it('leaves a flag off for 0, false or empty, and keeps the defaults without variables', async () => {
    expect(await parsed('start', [], { SANDBOX_IN_MEMORY: '0', SANDBOX_NO_RATE_LIMITS: 'false', SANDBOX_STRICT: '' })).toMatchObject({
      port: 4010,
      data: '.sandbox/db.json',
      rateLimits: true,
    });
    const opts = await parsed('start', [], {});
    expect(opts.inMemory).toBeUndefined();
    expect(opts.strict).toBeUndefined();
  });

  it('sets the options of exec too', async () => {
    expect(
      await parsed('exec', [], {
        SANDBOX_WORKERS: '4',
        SANDBOX_REPORT: 'r.xml',
        SANDBOX_REPORT_FORMAT: 'junit',
        SANDBOX_FAIL_ON_WARNING: 'yes',
        SANDBOX_KEY: 'live',
      }),
    ).toMatchObject({ workers: 4, report: 'r.xml', reportFormat: 'junit', failOnWarning: true, key: 'live' });
  });

  it('refuses a bad value in one line that names the variable', async () => {
    for (const [env, line] of [
      [{ SANDBOX_PORT: 'abc' }, 'sandbox: SANDBOX_PORT="abc": --port must be a whole number from 0 to 65535\n'],
      [
        { SANDBOX_IN_MEMORY: 'maybe' },
        'sandbox: SANDBOX_IN_MEMORY="maybe": --in-memory is a flag: set its variable to 1 (or true) to turn it on, 0 (or false) to leave it off\n',
      ],
    ] as const) {
      const r = await runCliInProcess(['start'], env);
      expect(r.stderr).toBe(line);
      expect(r.code).toBe(1);
    }
  });

  it('reaches a real start: the port, the clock and the data come from the environment', async () => {
    const run = runCli(['start', '--json'], {
      SANDBOX_PORT: '0',
      SANDBOX_IN_MEMORY: '1',
      SANDBOX_CLOCK: 'manual',
      SANDBOX_CLOCK_START: '2030-01-01T00:00:00Z',
    });
    try {
      const ready = JSON.parse(await run.firstLine) as { url: string; clock: { mode: string; now: string } };
      expect(ready.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(ready.url).not.toMatch(/:4010$/);
      expect(ready.clock).toMatchObject({ mode: 'manual', now: '2030-01-01T00:00:00.000Z' });
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
    }
  });

  it('every option of start and exec has its row in docs/configuration.md, "Options from the environment"', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../docs/configuration.md'), 'utf8');
    const table = doc.slice(doc.indexOf('<!-- env-table -->'));
    const missing: string[] = [];
    for (const name of ['start', 'exec']) {
      for (const option of buildProgram(name).commands.find((c) => c.name() === name)!.options) {
        // one space or more before each bar: a table may be padded to line up
        const row = new RegExp(`^\\| \`${option.envVar}\` +\\| \`[^|]*${option.long}\\b[^|]*\` +\\|[^\\n]*\\b${name}\\b`, 'm');
        if (!row.test(table)) missing.push(`| \`${option.envVar}\` | \`${option.flags.replace(/^-\w, /, '')}\` | ${name} |`);
      }
    }
    expect(missing, 'add these rows (or the command to the row)').toEqual([]);
  });
});
