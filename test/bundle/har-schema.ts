import { Ajv } from 'ajv';

/**
 * HAR 1.2 as a JSON Schema, written from the specification: Jan Odvarko, "HAR 1.2 Spec",
 * http://www.softwareishard.com/blog/har-12-spec/ (the W3C draft of the same format keeps its
 * objects and fields). Each object lists the fields the spec marks required; optional ones are
 * typed when present; a field whose name starts with an underscore is a tool's own, which the spec
 * allows anywhere ("Custom fields and elements MUST start with an underscore"). The `har-schema`
 * package is the same thing as a dependency; the project has none, so this file is ours, checked
 * with Ajv (a dev dependency already).
 */
const ISO_8601 = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:?\\d{2})$';

const custom = { patternProperties: { '^_': {} }, additionalProperties: false } as const;
const comment = { comment: { type: 'string' } } as const;
const nameValue = {
  type: 'object',
  required: ['name', 'value'],
  properties: { name: { type: 'string' }, value: { type: 'string' }, ...comment },
  ...custom,
} as const;
const cookie = {
  type: 'object',
  required: ['name', 'value'],
  properties: {
    name: { type: 'string' },
    value: { type: 'string' },
    path: { type: 'string' },
    domain: { type: 'string' },
    expires: { type: ['string', 'null'], pattern: ISO_8601 },
    httpOnly: { type: 'boolean' },
    secure: { type: 'boolean' },
    ...comment,
  },
  ...custom,
} as const;
const postData = {
  type: 'object',
  required: ['mimeType'],
  properties: {
    mimeType: { type: 'string' },
    text: { type: 'string' },
    params: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, value: { type: 'string' }, fileName: { type: 'string' }, contentType: { type: 'string' }, ...comment },
        ...custom,
      },
    },
    ...comment,
  },
  // "text [string] ... params [array]": one or the other
  anyOf: [{ required: ['text'] }, { required: ['params'] }],
  ...custom,
} as const;
/** a size or a duration the tool may not know: -1 */
const sizeOrUnknown = { type: 'integer', minimum: -1 } as const;
const duration = { type: 'number', minimum: -1 } as const;

const request = {
  type: 'object',
  required: ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize'],
  properties: {
    method: { type: 'string' },
    url: { type: 'string', pattern: '^[a-z][a-z0-9+.-]*://' },
    httpVersion: { type: 'string' },
    cookies: { type: 'array', items: cookie },
    headers: { type: 'array', items: nameValue },
    queryString: { type: 'array', items: nameValue },
    postData,
    headersSize: sizeOrUnknown,
    bodySize: sizeOrUnknown,
    ...comment,
  },
  ...custom,
} as const;
const content = {
  type: 'object',
  required: ['size', 'mimeType'],
  properties: {
    size: { type: 'integer' },
    compression: { type: 'integer' },
    mimeType: { type: 'string' },
    text: { type: 'string' },
    encoding: { type: 'string' },
    ...comment,
  },
  ...custom,
} as const;
const response = {
  type: 'object',
  required: ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize', 'bodySize'],
  properties: {
    status: { type: 'integer' },
    statusText: { type: 'string' },
    httpVersion: { type: 'string' },
    cookies: { type: 'array', items: cookie },
    headers: { type: 'array', items: nameValue },
    content,
    redirectURL: { type: 'string' },
    headersSize: sizeOrUnknown,
    bodySize: sizeOrUnknown,
    ...comment,
  },
  ...custom,
} as const;
const cacheEntry = {
  type: ['object', 'null'],
  required: ['lastAccess', 'eTag', 'hitCount'],
  properties: { expires: { type: 'string' }, lastAccess: { type: 'string' }, eTag: { type: 'string' }, hitCount: { type: 'integer' }, ...comment },
  ...custom,
} as const;
const timings = {
  type: 'object',
  required: ['send', 'wait', 'receive'],
  properties: {
    blocked: duration,
    dns: duration,
    connect: duration,
    send: { type: 'number', minimum: 0 },
    wait: { type: 'number', minimum: 0 },
    receive: { type: 'number', minimum: 0 },
    ssl: duration,
    ...comment,
  },
  ...custom,
} as const;
const entry = {
  type: 'object',
  required: ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'],
  properties: {
    pageref: { type: 'string' },
    startedDateTime: { type: 'string', pattern: ISO_8601 },
    time: { type: 'number', minimum: 0 },
    request,
    response,
    cache: { type: 'object', properties: { beforeRequest: cacheEntry, afterRequest: cacheEntry, ...comment }, ...custom },
    timings,
    serverIPAddress: { type: 'string' },
    connection: { type: 'string' },
    ...comment,
  },
  ...custom,
} as const;
const creator = {
  type: 'object',
  required: ['name', 'version'],
  properties: { name: { type: 'string' }, version: { type: 'string' }, ...comment },
  ...custom,
} as const;
const page = {
  type: 'object',
  required: ['startedDateTime', 'id', 'title', 'pageTimings'],
  properties: {
    startedDateTime: { type: 'string', pattern: ISO_8601 },
    id: { type: 'string' },
    title: { type: 'string' },
    pageTimings: { type: 'object', properties: { onContentLoad: duration, onLoad: duration, ...comment }, ...custom },
    ...comment,
  },
  ...custom,
} as const;

export const HAR_SCHEMA = {
  type: 'object',
  required: ['log'],
  properties: {
    log: {
      type: 'object',
      required: ['version', 'creator', 'entries'],
      properties: {
        version: { type: 'string', const: '1.2' },
        creator,
        browser: creator,
        pages: { type: 'array', items: page },
        entries: { type: 'array', items: entry },
        ...comment,
      },
      ...custom,
    },
  },
  ...custom,
} as const;

/** The HAR's problems, one line each (Ajv's path and message); [] when it is valid HAR 1.2. */
export function harProblems(har: unknown): string[] {
  const validate = new Ajv({ allErrors: true, strict: false }).compile(HAR_SCHEMA);
  if (validate(har)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(top)'} ${e.message ?? ''}`.trim());
}
