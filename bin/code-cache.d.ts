// Types of ./code-cache.js, for the tests (bin/ is plain JavaScript, run by node as is).
export declare const CJS_BUNDLE: string;
export declare function runtimeKey(): string | null;
export declare function cacheFile(root: string, key: string): string;
export declare function loadCli(root: string): { cli: Record<string, unknown>; writeLater: (() => boolean) | null } | null;
export declare function loadCliForCaching(root: string): { cli: Record<string, unknown>; write: () => boolean };
