/**
 * Storage engine entry point. The only module tree that imports lowdb or
 * touches the database files.
 */
export * from './types.ts';
export { DEFAULT_COMPACT_AFTER_COMMITS } from './store.ts';
export { openStore } from './open-store.ts';
export { FieldIndex } from './field-index.ts';
export { onListenerError, type ListenerErrorHandler, type ListenerFailure } from './listener-errors.ts';
