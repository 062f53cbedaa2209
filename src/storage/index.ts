/**
 * The one door of storage: everything outside src/storage/ imports storage from
 * here, and from nowhere else (test/architecture.test.ts holds the rule). Behind
 * it, the engine's core (the files of this folder) and the large-file tier
 * (large-files/, reached only through its own entry); docs/storage.md maps both.
 * Storage imports nothing of the sandbox above it: it takes plain values.
 */

// the contract: the Store, its ops, rows and changes, its errors and options
export * from './types.ts';
// opening a store (the engine in memory, or over a database file), and the lock's one line
export { openStore } from './open.ts';
export { describeTakeover } from './lock.ts';
// the typed handles: the only place outside the engine where an op is built
export {
  CollectionRegistry,
  declaredCopiedSecrets,
  defineCollection,
  deleteRowOp,
  putRowOp,
  type Collection,
  type Repository,
  type StoredRow,
} from './collection.ts';
// one request, one commit (src/http/commit-hooks.ts opens and closes a request's group)
export { CommitGroup, leaveCommitGroup, runInCommitGroup } from './commit-group.ts';
// what listens to a store's changes: indexes kept from the change feed, and a listener's failures
export { workspaceReplacedBy } from './change-feed.ts';
export { FieldIndex, textKey } from './field-index.ts';
export { EAGER_BUILD_ROWS, OrderedIndex, type PageQuery } from './ordered-index.ts';
export { onListenerError, type ListenerErrorHandler, type ListenerFailure } from './listener-errors.ts';
export { rowHolds } from './row-text.ts';
// a database given as JSON, parsed one collection at a time when first read
export { deferredFromJson, jsonWithSpans, withRows } from './deferred.ts';
// created workspaces: copy-on-write views over their template's rows (for src/workspaces and
// the control plane's state import and export; an area never needs them)
export { OverlayStore } from './overlay-store.ts';
export { BASE_PREFIX, basePartition, isTombstone, OVERLAYS, type OverlayRecord } from './overlay-records.ts';
export { DEFAULT_CACHED_ROWS } from './overlay-views.ts';
export { maskId, newMask, parseMask, type IdMask } from './id-mask.ts';
// files a person points the sandbox at, read only when regular and under a limit
export { FILE_LIMITS, FileRefusedError, readRegularFile, readRegularTextFile } from './regular-file.ts';
// who a pid names beyond the pid (the lock's, and the CLI's detached record's)
export { identityOf, isAnotherProcess, parseIdentity, type ProcessIdentity } from './process-identity.ts';
// one full GC once a bulk write (a seed, a large file's bytes) has settled
export { bulkRuns, gcExposed } from './heap.ts';
// JSON read as bytes: where values start and end without parsing them (the sliced state import)
export { CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, stringEnd } from './json-bytes.ts';
