import { bold } from './output.ts';

/** Left-aligned columns, two spaces apart, with a bold header row. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[bold(line(header)), ...rows.map(line)].join('\n')}\n`;
}

export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/** Writes human output (one string, usually ending in a newline). */
export const say = (text: string): void => {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
};
