import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The inspector's tests load the page from dist/inspector (src/control/inspector.ts serves
 * it from there). `npm install` builds it; this rebuilds it when a source is newer, so a
 * test never runs against a stale page. Called once per test file that loads the page.
 */
const root = join(import.meta.dirname, '../..');
const SOURCES = join(root, 'src/inspector');
const BUILT = join(root, 'dist/inspector/index.html');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return Math.max(newest, statSync(join(root, 'scripts/build-inspector.mjs')).mtimeMs);
}

let building: Promise<void> | null = null;

export function ensureInspectorBuilt(): Promise<void> {
  building ??= (async () => {
    if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= newestSource(SOURCES)) return;
    const script: string = join(root, 'scripts/build-inspector.mjs'); // a plain .mjs script: typed here
    const { buildInspector } = (await import(script)) as { buildInspector: () => Promise<unknown> };
    await buildInspector();
  })();
  return building;
}
