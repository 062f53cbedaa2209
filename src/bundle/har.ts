import type { RequestLogEntry } from '../core/events.ts';

/**
 * The request log as HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the archive
 * format browsers' developer tools, proxies (Charles, mitmproxy), Postman and Insomnia import:
 * `sandbox logs --har` from a running sandbox, `sandbox open <bundle> --har` from a bundle.
 *
 * What the sandbox keeps is what the HAR holds: every entry's method, URL, status and duration;
 * its headers and bodies where the log kept them (the newest requests, bodies cut at 4 KB, each
 * cut said in a `comment`); secrets redacted as in the log itself (src/core/redact.ts). The log
 * has no timing phases, so `wait` holds the whole duration, and no header sizes (-1, "unknown",
 * as the spec allows). The sandbox's own facts go in fields the spec reserves for tools, with a
 * leading underscore: `_requestId`, `_reason` (X-Sandbox-Reason), `_warnings`, `_workspaceId`.
 */
export interface HarCreator {
  name: string;
  version: string;
}

type NameValue = { name: string; value: string };

/** `entries` oldest first; `baseUrl` makes each logged path (`/v1/...`) a whole URL, as HAR wants. */
export function harOf(entries: readonly RequestLogEntry[], creator: HarCreator, baseUrl: string) {
  return { log: { version: '1.2', creator, entries: entries.map((entry) => harEntry(entry, baseUrl.replace(/\/+$/, ''))) } };
}
export type Har = ReturnType<typeof harOf>;

function harEntry(entry: RequestLogEntry, baseUrl: string) {
  const detail = entry.detail;
  const requestHeaders = pairs(detail?.request.headers);
  const responseHeaders = pairs(detail?.response.headers);
  const requestBody = detail?.request.body ?? null;
  const responseBody = detail?.response.body ?? null;
  const cut = [detail?.request.truncated && 'the request body', detail?.response.truncated && 'the response body'].filter(Boolean);
  const dropped = entry.status === 0;
  return {
    startedDateTime: entry.at,
    time: entry.latencyMs,
    request: {
      method: entry.method,
      url: `${baseUrl}${entry.path}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: requestHeaders,
      queryString: queryPairs(entry.path),
      ...(requestBody !== null ? { postData: { mimeType: header(requestHeaders, 'content-type') ?? 'application/json', text: requestBody } } : {}),
      headersSize: -1,
      bodySize: requestBody === null ? 0 : Buffer.byteLength(requestBody),
    },
    response: {
      status: entry.status,
      statusText: '',
      httpVersion: dropped ? '' : 'HTTP/1.1',
      cookies: [],
      headers: responseHeaders,
      content: {
        size: responseBody === null ? 0 : Buffer.byteLength(responseBody),
        mimeType: header(responseHeaders, 'content-type') ?? (responseBody === null ? 'x-unknown' : 'application/json'),
        ...(responseBody !== null ? { text: responseBody } : {}),
      },
      redirectURL: header(responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: responseBody === null ? (dropped ? -1 : 0) : Buffer.byteLength(responseBody),
    },
    cache: {},
    timings: { send: 0, wait: entry.latencyMs, receive: 0 },
    ...(detail === undefined ? { comment: 'headers and bodies not kept: the log keeps them for its newest requests only' } : {}),
    ...(cut.length > 0 ? { comment: `${cut.join(' and ')} cut at 4 KB, as the log keeps them` } : {}),
    _requestId: entry.requestId,
    ...(entry.reason ? { _reason: entry.reason } : {}),
    ...(entry.warnings ? { _warnings: entry.warnings } : {}),
    ...(entry.workspaceId ? { _workspaceId: entry.workspaceId } : {}),
    ...(dropped ? { _error: 'a fault rule dropped the connection: no answer was sent' } : {}),
  };
}

function pairs(headers: Record<string, string> | undefined): NameValue[] {
  return Object.entries(headers ?? {}).map(([name, value]) => ({ name, value }));
}

function header(headers: readonly NameValue[], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

function queryPairs(path: string): NameValue[] {
  const question = path.indexOf('?');
  if (question < 0) return [];
  return [...new URLSearchParams(path.slice(question + 1))].map(([name, value]) => ({ name, value }));
}
