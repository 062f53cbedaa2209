import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONG_FILES } from '../tiers.ts';

/**
 * Vitest's order (its cached durations, longest first), with the long files of
 * test/tiers.ts ahead of everything, longest first: a long file that started
 * last kept one of the two workers busy alone for its whole length (the docs
 * test: 86 s of a 405 s run), and the cache that should prevent it
 * is shared and rewritten by partial runs.
 */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const seconds = (spec: TestSpecification) => LONG_FILES[relative(this.ctx.config.root, spec.moduleId).split('\\').join('/')] ?? 0;
    return sorted
      .map((spec, index) => ({ spec, index, long: seconds(spec) }))
      .sort((a, b) => b.long - a.long || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
