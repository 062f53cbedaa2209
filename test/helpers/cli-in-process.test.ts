import { describe, expect, it } from 'vitest';
import { runCli } from './cli.ts';
import { runCliInProcess } from './cli-in-process.ts';

// The command tests trust the in-process runner to behave as the bin does: the
// same output and exit code for success, a usage error (2) and a failure (1).
describe('runCliInProcess', () => {
  it('gives what the spawned bin gives: stdout, stderr and exit code', async () => {
    for (const args of [['--version'], ['start', '--bogus'], ['clock', '--url', 'http://127.0.0.1:9']]) {
      const spawned = await runCli(args, { SANDBOX_URL: '' }).exit;
      const inProcess = await runCliInProcess(args, { SANDBOX_URL: '' });
      expect(inProcess, args.join(' ')).toEqual({ code: spawned.code, stdout: spawned.stdout, stderr: spawned.stderr });
    }
  });

  it('leaves the process as it found it: writes, exit, environment', async () => {
    const before = { stdout: process.stdout.write, exit: process.exit, env: { ...process.env }, errorListeners: process.stdout.listenerCount('error') };
    const r = await runCliInProcess(['clock', '--no-color', '--url', 'http://127.0.0.1:9'], { SANDBOX_EXTRA: 'x' }); // --no-color sets NO_COLOR
    expect(r.code).toBe(1);
    expect(process.stdout.write).toBe(before.stdout);
    expect(process.exit).toBe(before.exit);
    expect(process.env).toEqual(before.env);
    expect(process.stdout.listenerCount('error')).toBe(before.errorListeners);
  });
});
