import type { Command } from 'commander';
import { controlCommand } from '../control.ts';
import { group } from './options.ts';

/** `sandbox snapshot save|restore|list|export|import`, and `sandbox reset`: the whole state. */
export function snapshotCommand(program: Command): void {
  const snapshot = group(program, 'snapshot', 'save, restore, export and import the whole state', 'snapshot save clean && npx sandbox snapshot restore clean');
  controlCommand(snapshot, 'save', 'keep the state in memory under a name', ['snapshot save before-test'])
    .argument('<name>', '1-64 letters, digits, _ . -')
    .action(async (name: string, opts) => (await import('../state.ts')).runSnapshotSave(name, opts));
  controlCommand(snapshot, 'restore', 'go back to a saved snapshot', ['snapshot restore before-test'])
    .argument('<name>', 'snapshot name')
    .action(async (name: string, opts) => (await import('../state.ts')).runSnapshotRestore(name, opts));
  controlCommand(snapshot, 'list', 'list saved snapshots', ['snapshot list'], { isDefault: true }).action(async (opts) =>
    (await import('../state.ts')).runSnapshotList(opts),
  );
  controlCommand(snapshot, 'export', 'write the whole state as JSON (a valid --data file)', [
    'snapshot export state.json',
    'snapshot export | gzip > state.json.gz',
  ])
    .argument('[file]', 'file (default: stdout)')
    .action(async (file: string | undefined, opts) => (await import('../state.ts')).runSnapshotExport(file, opts));
  controlCommand(snapshot, 'import', 'replace the whole state with an exported file', ['snapshot import state.json'])
    .argument('<file>', 'an export or a database file')
    .action(async (file: string, opts) => (await import('../state.ts')).runSnapshotImport(file, opts));
}

export function resetCommand(program: Command): void {
  controlCommand(program, 'reset', 'put a running sandbox back to its fixtures', ['reset']).action(async (opts) =>
    (await import('../state.ts')).runReset(opts),
  );
}
