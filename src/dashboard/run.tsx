import { render } from 'ink';
import { ControlClient } from '../control/client.ts';
import { App } from './App.tsx';
import { ControlSource } from './control-source.ts';
import { runPlainLog } from './plain-log.ts';
import type { DashboardSource } from './types.ts';

export interface OpenDashboardOptions {
  url: string;
  token?: string | undefined;
  /** after q: the caller stops its sandbox (start --dashboard) or just exits */
  onQuit: () => void;
  /** after the dashboard itself failed (one line is already on stderr): the caller exits 1 */
  onFailure?: () => void;
  /** another source (tests); by default the control plane at `url` */
  source?: DashboardSource;
}

const ENTER_ALT_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALT_SCREEN = '\u001b[?1049l';

/**
 * Opens the dashboard in this terminal, or, when stdout is not a terminal,
 * prints plain log lines instead. Resolves once the dashboard has started.
 */
export async function openDashboard(options: OpenDashboardOptions): Promise<void> {
  const source = options.source ?? new ControlSource(new ControlClient({ url: options.url, ...(options.token ? { token: options.token } : {}) }));
  if (!process.stdout.isTTY || !process.stdin.isTTY) {
    runPlainLog(source, (line) => process.stdout.write(`${line}\n`));
    return;
  }
  // the alternate screen keeps the user's scrollback as it was once the dashboard quits
  process.stdout.write(ENTER_ALT_SCREEN);
  let left = false;
  const leave = () => {
    if (left) return;
    left = true;
    process.stdout.write(LEAVE_ALT_SCREEN);
  };
  process.on('exit', leave);
  const instance = render(
    <App
      source={source}
      color={!process.env.NO_COLOR}
      onQuit={() => {
        instance.unmount();
        leave();
        options.onQuit();
      }}
    />,
    { exitOnCtrlC: false, patchConsole: true },
  );
  // Errors the panels' boundaries cannot hold end Ink's app: say so in one line and let the caller stop, never hang.
  instance.waitUntilExit().catch((err: unknown) => {
    instance.unmount();
    leave();
    process.stderr.write(`sandbox: the dashboard stopped: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}\n`);
    (options.onFailure ?? options.onQuit)();
  });
}
