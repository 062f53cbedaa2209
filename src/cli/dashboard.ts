import { controlToken, type ControlFlags } from './control.ts';

export type DashboardFlags = Pick<ControlFlags, 'url' | 'token'>;

/**
 * `sandbox dashboard [--url] [--token]`: attaches to a running sandbox from
 * another terminal (docs/dashboard.md). It reads only the control plane; when
 * no sandbox answers yet it shows that and keeps reconnecting. Ink and React
 * are imported here, only when this command runs.
 */
export async function runDashboard(flags: DashboardFlags): Promise<void> {
  const { openDashboard } = await loadDashboard();
  await openDashboard({ url: flags.url, token: controlToken(flags), onQuit: () => process.exit(0), onFailure: () => process.exit(1) });
}

/** `sandbox start --dashboard`: the same dashboard over the sandbox this process serves; q stops it. */
export async function openStartDashboard(url: string, token: string | null, stop: (exitCode?: number) => void): Promise<void> {
  const { openDashboard } = await loadDashboard();
  await openDashboard({ url, token: token ?? undefined, onQuit: () => stop(0), onFailure: () => stop(1) });
}

/**
 * Ink draws only the last frame when it believes it runs in CI (a CI or
 * CONTINUOUS_INTEGRATION variable is set). Someone who asks for the dashboard
 * on a terminal wants it live wherever they are, so on a TTY those variables
 * are cleared for this process before Ink is loaded.
 */
async function loadDashboard() {
  if (process.stdout.isTTY) {
    for (const name of ['CI', 'CONTINUOUS_INTEGRATION']) if (name in process.env) process.env[name] = 'false';
  }
  return import('../dashboard/run.tsx');
}
