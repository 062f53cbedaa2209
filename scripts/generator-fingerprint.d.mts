/** A hash of the fixture generator's sources, faker's version and the package version. */
export function generatorFingerprint(root: string): string;
