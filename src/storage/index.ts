/**
 * Storage engine entry point. The only module tree that imports lowdb or
 * touches the database files.
 */
export * from './types.ts';
export { openStore, DEFAULT_COMPACT_AFTER_COMMITS } from './store.ts';
