/**
 * The one text search of stored rows (the inspector's `q`, src/control/data.ts): a row matches when
 * its JSON, lower-cased, holds the needle, which the caller has lower-cased. Every store answers
 * scanMatching with it, so a packed page, a plain partition and an overlay view agree.
 */
export const rowHolds = (row: unknown, needle: string): boolean => JSON.stringify(row).toLowerCase().includes(needle);
