import { existsSync } from 'node:fs';
import { CHROMIUM } from '../../bench/lib/chromium.ts';

/**
 * Whether the browser tests can run (no silent skips). Without
 * Chromium they are skipped, and the run's end says so in one line
 * (test/setup/global.ts); under CI a missing browser fails the file instead,
 * at its import, so that CI never passes without them.
 */
export const INSTALL_CHROMIUM = 'apt-get install -y chromium';
export const HAS_CHROMIUM = existsSync(CHROMIUM);
/** CI set, and not to 'false' or '0' */
export const onCi = (env: NodeJS.ProcessEnv = process.env): boolean => Boolean(env.CI) && env.CI !== 'false' && env.CI !== '0';
export const ON_CI = onCi();

export function missingChromium(): string {
  return `Chromium is missing (${CHROMIUM}); install it: ${INSTALL_CHROMIUM}`;
}

/** At the top of a browser test file: false (skip its tests) without Chromium; throws under CI. */
export function chromiumOrSkip(): boolean {
  if (HAS_CHROMIUM) return true;
  if (ON_CI) throw new Error(`${missingChromium()} (CI is set, so the browser tests fail rather than skip)`);
  return false;
}
