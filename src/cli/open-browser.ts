import { spawn } from 'node:child_process';

/**
 * How the CLI opens a URL in a browser: $SANDBOX_BROWSER (a command, given the
 * URL as its one argument) when set, else the platform's opener (`open` on
 * macOS, `cmd /c start` on Windows, `xdg-open` elsewhere). No dependency.
 */
function opener(url: string): { command: string; args: string[] } {
  const chosen = process.env.SANDBOX_BROWSER;
  if (chosen) return { command: chosen, args: [url] };
  if (process.platform === 'darwin') return { command: 'open', args: [url] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', url.replace(/&/g, '^&')] };
  return { command: 'xdg-open', args: [url] };
}

/** How long an opener may run before it counts as having opened the browser (xdg-open may stay with it). */
const OPENER_SETTLE_MS = 3000;

/**
 * Opens `url` in a browser, detached. Resolves null when the opener started it
 * (exit 0, or still running after a few seconds), else the reason in a few
 * words (no opener, no display: it exited non-zero). Never throws.
 */
export function openBrowser(url: string): Promise<string | null> {
  const { command, args } = opener(url);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (reason: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(reason);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
    } catch (err) {
      resolve(`${command} could not start: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const timer = setTimeout(() => {
      child.unref();
      settle(null);
    }, OPENER_SETTLE_MS);
    timer.unref();
    child.on('error', (err: NodeJS.ErrnoException) => settle(err.code === 'ENOENT' ? `${command} was not found` : `${command} failed: ${err.message}`));
    child.on('exit', (code, signal) => settle(code === 0 ? null : `${command} exited with ${signal ?? `code ${code}`}`));
  });
}

/** Opens the URL, or prints the one line that says it could not (no display, as in CI), with the URL. */
export async function openOrSay(url: string, write: (line: string) => void = (line) => process.stderr.write(line)): Promise<boolean> {
  const failed = await openBrowser(url);
  if (failed === null) return true;
  write(`sandbox: could not open a browser (${failed}); open ${url}\n`);
  return false;
}
