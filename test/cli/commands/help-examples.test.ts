import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/main.ts';

/** Every command and subcommand of the program, with its path (`scenario list`). */
function walk(command: Command, path: string[] = []): { path: string; command: Command }[] {
  return [{ path: path.join(' ') || '(sandbox)', command }, ...command.commands.flatMap((sub) => walk(sub, [...path, sub.name()]))];
}

/** What `--help` prints for one command, the text added after it included. */
function helpOf(command: Command): string {
  let out = '';
  const saved = command.configureOutput();
  command.configureOutput({ writeOut: (text) => void (out += text), writeErr: (text) => void (out += text) });
  try {
    command.outputHelp();
  } finally {
    command.configureOutput(saved);
  }
  return out;
}

/** docs/cli.md says every command's help ends with an example; this holds it to that. */
describe('every help ends with an example', () => {
  const all = walk(buildProgram());

  it('walks the whole program', () => {
    expect(all.map((c) => c.path)).toEqual(
      expect.arrayContaining(['(sandbox)', 'start', 'exec', 'scenario', 'scenario list', 'scenario run', 'keys create', 'clock advance']),
    );
  });

  it.each(all.map((c) => [c.path, c.command] as const))('%s', (_path, command) => {
    const lines = helpOf(command).trimEnd().split('\n');
    const examples = lines.findLastIndex((line) => /^Examples?:$/.test(line));
    expect(examples, lines.slice(-3).join('\n')).toBeGreaterThan(0);
    const after = lines.slice(examples + 1);
    expect(after.length).toBeGreaterThan(0);
    for (const line of after) expect(line).toMatch(/^ {2}\$ .*\bnpx sandbox /);
  });
});
