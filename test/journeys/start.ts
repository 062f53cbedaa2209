import { runCli, waitForStdout, type Running } from '../helpers/cli.ts';

/**
 * The journeys start the sandbox as a user does: `sandbox start` in a process of its
 * own, on a free port, in memory, with the banner read for what it offers.
 */
export interface StartedSandbox {
  run: Running;
  url: string;
  banner: string;
  stop(): Promise<void>;
}

/** In memory unless `args` name a `--data` file (the README's first booking, run again on one file). */
export async function startSandbox(args: string[] = [], env: Record<string, string> = {}): Promise<StartedSandbox> {
  const run = runCli(['start', '--port', '0', ...(args.includes('--data') ? [] : ['--in-memory']), ...args], env);
  await waitForStdout(run, 'Ctrl+C stops it', 60_000);
  const banner = run.output().stdout;
  const url = /is serving (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)![1]!;
  return {
    run,
    url,
    banner,
    async stop() {
      if (run.child.exitCode === null) run.child.kill('SIGINT');
      await run.exit;
    },
  };
}
