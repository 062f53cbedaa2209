/**
 * Where `sandbox start --detach` records the sandboxes it started from this folder
 * (./detached-record.ts reads and writes it; ./folder-sandbox.ts looks for it before loading that
 * reader). A module of its own so both import it without importing each other.
 */
export const DETACHED_RECORD = '.sandbox/detached.json';
