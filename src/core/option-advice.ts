/**
 * The way out of an error that a createSandbox option fixes. The
 * library and the CLI give the same advice in their own words: a programmatic
 * user reads "the `port` option", a CLI user "--port <n>" (src/cli/output.ts
 * holds the flag of each option). The error's message is the library's.
 */
export interface OptionAdvice {
  /** the createSandbox option, e.g. `port` */
  option: string;
  /** the advice, given how to name the option */
  text: (name: string) => string;
}

/** An error with advice: `message` is the library's wording, `problem` the part before the advice. */
export interface AdvisedError extends Error {
  readonly problem: string;
  readonly advice: OptionAdvice;
}

export const libraryWording = (problem: string, advice: OptionAdvice | undefined): string =>
  advice ? `${problem}; ${advice.text(`the \`${advice.option}\` option`)}` : problem;

export const isAdvised = (err: unknown): err is AdvisedError =>
  err instanceof Error && typeof (err as Partial<AdvisedError>).problem === 'string' && typeof (err as Partial<AdvisedError>).advice?.text === 'function';
