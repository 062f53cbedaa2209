/**
 * Debian's Chromium, as the inspector's bench and browser tests launch it (playwright-core; no
 * browser is downloaded here).
 *
 * Chromium 156 preloads its omnibox popup as WebUI in a renderer of its own, even headless,
 * where no omnibox is ever shown: measured on the 2-core machine, that renderer and the browser
 * process spent about 15% of a core as soon as one tab was open, about:blank included, and
 * under 2% with the two features below off. That cost is the browser's, not the page's, and a
 * browser a person uses has it with or without the inspector open, so the bench's ratio
 * (a page open against none) and the tests leave it out (docs/inspector.md, "Figures").
 */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium'; // CHROMIUM_PATH: another build, or a missing one (test/setup/silent-skips.test.ts)
export const CHROMIUM_ARGS: readonly string[] = ['--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup'];
