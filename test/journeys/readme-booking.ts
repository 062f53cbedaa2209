import { commands, type DocBlock, extractBlocks } from '../docs/extract.ts';

/** The README's first booking ("Try it"): the block that creates a booking against the running sandbox (of the clone's README, or of `blocks`). */
export function firstBookingBlock(blocks: DocBlock[] = extractBlocks('README.md')): DocBlock {
  const block = blocks.find((b) => b.code.includes('/v1/bookings') && /-d /.test(b.code) && b.directive.needsSandbox);
  if (!block) throw new Error('README.md: no block creates a booking against the running sandbox');
  return block;
}

/** Its commands as one script (the docs test's `one-shell`), aimed at the sandbox at `url`. */
export const firstBookingScript = (block: DocBlock, url: string): string =>
  commands(block)
    .commands.join('\n')
    .replace(/127\.0\.0\.1:4010\b/g, url.slice('http://'.length));
