// The CLI from V8's code cache (docs/benchmarks.md, "Start-up").
//
// Compiling the bundle is a good part of every start, and Node 20 keeps no
// compiled code between runs for ES modules (module.enableCompileCache() is
// Node 22.1+). So `npm run build` also makes dist/cli.cjs, the whole CLI as
// one CommonJS script (but the dashboard: Ink and React stay ES modules, in
// dist/dashboard.js), runs it once through a start and its first request, and
// writes what V8 compiled meanwhile to dist/cli.cjs.<runtime>.cache. A start
// hands that back to V8 with the source (vm.Script cachedData): no parsing,
// and the functions a start runs are already compiled.
//
// A code cache only fits the V8 and the flags that made it: the file name
// carries the Node version, platform and architecture, and a process started
// with flags of its own (NODE_OPTIONS, node --flags) does not look for it.
// Without a fitting cache, loadCli() compiles the bundle without one and the
// start writes it a little later (a package packed under another Node), or,
// where dist/ cannot be written, returns null and bin/sandbox.js loads the ES
// module bundle (dist/cli.js) instead: the cache is an optimisation only.
// V8 checks the cache itself too, and compiles as usual when it refuses it
// (the start then writes a new one). Set SANDBOX_CODE_CACHE=off to never use it.
import { accessSync, constants, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import vm from 'node:vm';

/** the CommonJS bundle, relative to the package root */
export const CJS_BUNDLE = 'dist/cli.cjs';

/** The part of the cache's file name that V8's own check would reject on a mismatch; null when the process has flags of its own. */
export function runtimeKey() {
  if (process.execArgv.length > 0 || process.env.NODE_OPTIONS) return null;
  return `node-${process.version}-${process.platform}-${process.arch}`;
}

export function cacheFile(root, key) {
  return `${root}${CJS_BUNDLE}.${key}.cache`;
}

// one line before the source, so that its line numbers (and the source map's) stay as they are
const PREFIX = '(function (exports, require, module, __filename, __dirname, __sandboxImportMetaUrl, __sandboxImport) {\n';

// esbuild writes ASCII only (every other character escaped), so latin1 reads it as is, as a one-byte string
const readBundle = (root) => readFileSync(`${root}${CJS_BUNDLE}`, 'latin1');

function compile(root, source, cachedData) {
  const filename = `${root}${CJS_BUNDLE}`;
  const script = new vm.Script(`${PREFIX}${source}\n})`, {
    filename,
    lineOffset: -1,
    ...(cachedData ? { cachedData } : {}),
  });
  const module = { exports: {} };
  const url = pathToFileURL(filename).href;
  // Node 20 cannot import() from a script compiled with a code cache: the bundle's one import(),
  // of the dashboard (dist/dashboard.js, an ES module), goes through this function instead
  const importModule = (specifier) => import(new URL(specifier, url).href);
  script.runInThisContext()(module.exports, createRequire(filename), module, filename, `${root}dist`, url, importModule);
  return { script, cli: module.exports };
}

/**
 * The CLI's module from dist/cli.cjs for a start, or null for the ES module
 * bundle. With a cache for this runtime, compiled from it. Without one (a
 * package packed under another Node, or a cache V8 refused), and where dist/
 * is writable, compiled without it and `writeLater` set: the caller writes the
 * cache once the start has run a little (bin/sandbox.js), so the next start
 * has it, as Node 22's compile cache does for ES modules. Otherwise null.
 */
export function loadCli(root) {
  if (process.env.SANDBOX_CODE_CACHE === 'off') return null;
  const key = runtimeKey();
  if (!key) return null;
  const file = cacheFile(root, key);
  let source;
  let cachedData;
  try {
    source = readBundle(root);
    if (existsSync(file)) cachedData = readFileSync(file);
    else accessSync(`${root}dist`, constants.W_OK); // no cache and none can be written: the ES modules compile faster
  } catch {
    return null;
  }
  const { script, cli } = compile(root, source, cachedData);
  const fits = cachedData !== undefined && !script.cachedDataRejected;
  return { cli, writeLater: fits ? null : () => writeCache(script, file) };
}

/**
 * For scripts/build.mjs: the CLI compiled without a cache, and a function that
 * writes what V8 has compiled so far as this runtime's cache (the caller runs
 * a start and its first requests in between). Returns false when it could not.
 */
export function loadCliForCaching(root) {
  const key = runtimeKey();
  const { script, cli } = compile(root, readBundle(root));
  const write = () => {
    if (!key) return false;
    // V8 stamps the cache with the flags that differ from their defaults, and a start changes
    // two of them (src/cli/young-generation.ts); a new process has neither
    setFlagsFromString('--semi-space-growth-factor=2');
    setFlagsFromString('--heap-growing-percent=0');
    return writeCache(script, cacheFile(root, key));
  };
  return { cli, write };
}

/** Writes what V8 has compiled of `script` so far to `file`, atomically; false when it could not. */
function writeCache(script, file) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, file);
    return true;
  } catch {
    rmSync(tmp, { force: true });
    return false;
  }
}
