import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ControlPlaneError } from '../control/client.ts';
import { FILE_LIMITS, FileRefusedError, readRegularTextFile } from '../storage/index.ts';
import { printJson } from './output.ts';
import { plural, say, table } from './format.ts';
import { controlClient, report, type ScriptFlags } from './control.ts';

/**
 * `sandbox snapshot save|restore|list|export|import` and `sandbox reset`:
 * the whole state of a running sandbox. Snapshots live in the sandbox's
 * memory (fast restore between test cases); export/import move the whole
 * database as one JSON file (GET/PUT /__sandbox/state, up to 256 MiB), which
 * is also a valid --data file.
 */
export async function runSnapshotSave(name: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const saved = await client.saveSnapshot(name);
  report(flags, saved, () => `Saved snapshot ${saved.name} (${formatBytes(saved.bytes)}); restore it with \`sandbox snapshot restore ${saved.name}\``);
}

export async function runSnapshotRestore(name: string, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const restored = await client.restoreSnapshot(name);
  report(flags, restored, () => `Restored snapshot ${restored.name} in ${restored.ms} ms`);
}

export async function runSnapshotList(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const snapshots = await client.snapshots();
  if (flags.json) return printJson(snapshots);
  if (snapshots.length === 0) return say('No snapshots; save one with `sandbox snapshot save <name>`');
  say(
    table(
      ['NAME', 'SAVED AT (SANDBOX TIME)', 'SIZE'],
      snapshots.map((s) => [s.name, s.createdAt, formatBytes(s.bytes)]),
    ),
  );
}

/** Without a file, the JSON goes to stdout (so `> file` and pipes work); --json then changes nothing. */
export async function runSnapshotExport(file: string | undefined, flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const json = await client.exportState();
  if (file === undefined) return void process.stdout.write(json.endsWith('\n') ? json : `${json}\n`);
  try {
    await writeFile(file, json);
  } catch (err) {
    throw new Error(`cannot write ${file}: ${fileProblem(err, file)}`);
  }
  if (flags.json) return printJson({ file, bytes: Buffer.byteLength(json) });
  say(`Exported the whole state to ${file} (${formatBytes(Buffer.byteLength(json))})`);
}

export async function runSnapshotImport(file: string, flags: ScriptFlags): Promise<void> {
  let json: string;
  try {
    // a regular file of at most 256 MiB (the PUT /state body limit): a FIFO or /dev/zero would hang or exhaust memory
    json = await readRegularTextFile(file, { maxBytes: FILE_LIMITS.import });
  } catch (err) {
    if (err instanceof FileRefusedError) throw new Error(`cannot read ${file}: ${err.message}`);
    throw new Error(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : fileProblem(err, file)}`);
  }
  // checked here so the error names the file; the sandbox would only say "Malformed JSON body"
  if (!json.trimStart().startsWith('{')) throw new Error(`${file} is not valid JSON (export one with \`sandbox snapshot export\`)`);
  let imported;
  try {
    imported = await (await controlClient(flags)).importState(json);
  } catch (err) {
    if (err instanceof ControlPlaneError && /malformed json/i.test(err.message))
      throw new Error(`${file} is not valid JSON (export one with \`sandbox snapshot export\`)`);
    if (err instanceof ControlPlaneError && err.status < 500) throw new Error(`${file} cannot be imported: ${err.message}`);
    throw err;
  }
  report(flags, imported, () => `Imported ${file}: ${plural(imported.collections, 'collection')} replaced the whole state`);
}

export async function runReset(flags: ScriptFlags): Promise<void> {
  const client = await controlClient(flags);
  const reset = await client.reset();
  report(flags, reset, () => `Reset to the fixtures in ${reset.ms} ms (sandbox time ${reset.now})`);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A file system error in words that name what to fix, never a raw errno line. */
function fileProblem(err: unknown, file: string): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOENT':
      return `the directory ${dirname(file)} does not exist`;
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case 'ENOTDIR':
      return `a part of ${dirname(file)} is not a directory`;
    default:
      return (err as Error).message;
  }
}
