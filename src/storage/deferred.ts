import { isDeferred, type CollectionSpan, type Collections, type DeferredCollections, type InitialCollections, type Row, type SpannedJson } from './types.ts';

type Partitions = Record<string, Record<string, Row>>;

/**
 * A database given as JSON (a string, or ASCII bytes) and where each
 * collection's value is in it (`[start, end)`): each collection is decoded
 * and parsed when the store first reads it (src/storage/lazy-state.ts). The
 * prepared fixture database is given this way at start and on reset
 * (src/fixtures/source.ts).
 */
export function deferredFromJson(json: string | Buffer, spans: readonly CollectionSpan[]): DeferredCollections {
  const where = new Map(spans.map(([name, start, end]) => [name, [start, end] as const]));
  return {
    kind: 'deferred',
    names: spans.map(([name]) => name),
    load(name) {
      const span = where.get(name);
      if (!span) return {};
      return JSON.parse(typeof json === 'string' ? json.slice(span[0], span[1]) : json.toString('latin1', span[0], span[1])) as Partitions;
    },
  };
}

/**
 * `JSON.stringify(collections)`, built collection by collection to learn where
 * each one's value is. `encode` writes each key and value (JSON.stringify, or
 * an ASCII-only variant of it); the text parses to the same value.
 */
export function jsonWithSpans(collections: Collections, encode: (value: unknown) => string = JSON.stringify): SpannedJson {
  let text = '{';
  const spans: CollectionSpan[] = [];
  for (const [name, value] of Object.entries(collections)) {
    if (text.length > 1) text += ',';
    text += `${encode(name)}:`;
    const start = text.length;
    text += encode(value);
    spans.push([name, start, text.length]);
  }
  return { text: `${text}}`, spans };
}

/**
 * Adds one partition's rows to another's (the added ones win, and come last if new). Into a
 * new dictionary-mode object with Object.assign, not a spread into a literal: a spread of a
 * thousand created workspaces (keys that are all new) took 12-60 ms, a hidden class per key;
 * this takes about 1 ms (a global reset adds them back).
 */
function addRows(into: Partitions, extra: Partitions): Partitions {
  for (const [workspaceId, rows] of Object.entries(extra))
    into[workspaceId] = Object.assign(Object.create(null) as Record<string, Row>, into[workspaceId], rows);
  return into;
}

/**
 * `base` with `extra`'s rows added, in the order adding them one by one would
 * give (new collections last). A deferred base stays deferred.
 */
export function withRows(base: InitialCollections, extra: Collections): InitialCollections {
  const added = Object.keys(extra);
  if (added.length === 0) return base;
  if (!isDeferred(base)) {
    for (const name of added) base[name] = addRows(base[name] ?? {}, extra[name]!);
    return base;
  }
  return {
    kind: 'deferred',
    names: [...base.names, ...added.filter((name) => !base.names.includes(name))],
    load: (name) => (extra[name] ? addRows(base.load(name), extra[name]) : base.load(name)),
  };
}
