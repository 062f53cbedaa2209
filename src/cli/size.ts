import { InvalidArgumentError } from 'commander';

/**
 * A size in bytes as options write it: `10mb`, `512kb`, `1.5mib`, `2g`, plain bytes (`1048576`,
 * `4096b`). The units are binary, as Node's and most HTTP tools' body limits are (kb = 1024 bytes,
 * mb = 1024 kb, gb = 1024 mb; `kib`, `mib`, `gib` and a bare `k`, `m`, `g` are the same), any
 * case; a fraction is rounded down to a whole byte.
 */
const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};
const SIZE = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i;

/** The bytes of `text`, or null when it is not a size. */
export function parseSize(text: string): number | null {
  const match = SIZE.exec(text);
  const unit = match ? UNITS[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined) return null;
  return Math.floor(Number(match[1]) * unit);
}

/** How a size is said back: the largest binary unit it is a whole number of. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['gb', 1024 ** 3],
    ['mb', 1024 ** 2],
    ['kb', 1024],
  ] as const)
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  return `${bytes} bytes`;
}

/** A commander parser for a size option, as bytes: its usage error names the flag and the range. */
export function sizeOption(flag: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const bytes = parseSize(value);
    if (bytes === null || bytes < min || bytes > max) {
      // the value itself is added by the usage line (./usage.ts)
      throw new InvalidArgumentError(`${flag} takes a size from ${formatSize(min)} to ${formatSize(max)}, such as 10mb, 512kb or a number of bytes`);
    }
    return bytes;
  };
}
