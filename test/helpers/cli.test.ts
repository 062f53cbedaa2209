import { afterEach, describe, expect, it } from 'vitest';
import { runNode, waitForStdout, type Running } from './cli.ts';

// The helper the spawn tests wait with: it must fail, saying what was printed,
// rather than hang or pass when the awaited text never comes.
const started: Running[] = [];
const node = (script: string) => {
  const run = runNode(['-e', script]);
  started.push(run);
  return run;
};
afterEach(async () => {
  for (const run of started.splice(0)) {
    run.child.kill('SIGKILL');
    await run.exit;
  }
});

describe('waitForStdout', () => {
  it('resolves when the text appears, also when it was printed before the call', async () => {
    const run = node(`console.log('ready on port 1'); setTimeout(() => console.log('second'), 50); setTimeout(() => {}, 60_000)`);
    await waitForStdout(run, 'second');
    await waitForStdout(run, 'ready on port 1');
  });

  it('rejects when the process exits without printing it, showing its stdout and stderr', async () => {
    const run = node(`console.log('listening elsewhere'); console.error('Port 4010 is already in use'); process.exitCode = 3`);
    const error = await waitForStdout(run, 'Ctrl+C').then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).toMatch(/stdout never contained "Ctrl\+C": the process exited \(code 3\)/);
    expect(error?.message).toContain('listening elsewhere');
    expect(error?.message).toContain('Port 4010 is already in use');
  });

  it('rejects when the deadline passes while the process keeps running', async () => {
    const run = node(`console.log('still starting'); setTimeout(() => {}, 60_000)`);
    await waitForStdout(run, 'still starting');
    const error = await waitForStdout(run, 'Ctrl+C', 200).then(
      () => null,
      (err: Error) => err,
    );
    expect(error?.message).toMatch(/stdout never contained "Ctrl\+C": still missing after 200 ms/);
    expect(error?.message).toContain('still starting');
    expect(run.child.exitCode).toBeNull();
  });
});
