import { libraryWording, type OptionAdvice } from '../core/option-advice.ts';

/**
 * Raised for problems a person can fix (port in use, bad file); the CLI prints its message alone.
 * With `advice`, the message names the createSandbox option that fixes it, and the CLI names its flag.
 */
export class SandboxError extends Error {
  override readonly name = 'SandboxError';
  constructor(
    readonly problem: string,
    readonly advice?: OptionAdvice,
  ) {
    super(libraryWording(problem, advice));
  }
}
