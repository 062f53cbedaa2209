import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/main.ts';

/** `sandbox start` and `sandbox exec` build only their own command (less to load), and nothing else changes. */
describe('the program a starting command builds', () => {
  it.each(['start', 'exec'])('`%s` builds only itself, with the same options and help as in the whole CLI', (name) => {
    const sole = buildProgram(name);
    expect(sole.commands.map((c) => c.name())).toEqual([name]);
    const whole = buildProgram().commands.find((c) => c.name() === name)!;
    expect(sole.commands[0]!.helpInformation()).toBe(whole.helpInformation());
    expect(sole.commands[0]!.options.map((o) => o.flags)).toEqual(whole.options.map((o) => o.flags));
  });

  it('any other first argument builds every command (help, suggestions, groups)', () => {
    for (const first of [undefined, '--help', 'keys', 'star', '--no-color', 'constructor']) {
      expect(buildProgram(first).commands.length, String(first)).toBeGreaterThan(15);
    }
  });
});
