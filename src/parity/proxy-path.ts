/**
 * The path rule of the parity proxy (docs/parity.md, "Bounds on what a target sends"). The
 * client's `/v1/...` path is forwarded after `--target`'s base path, so a `..` segment that the
 * target (or a server in front of it) resolves would reach whatever else lives on its origin,
 * with the client's key. The dot segments are resolved here, as RFC 3986 5.2.4 does, whether raw
 * or percent-encoded in any case (`..`, `%2e%2e`, `.%2E`), and a path that leaves `/v1` once they
 * are is refused. An encoded `/` or `\` (`%2F`, `%5C`) or a raw `\` inside a segment is refused
 * too: one normalizer splits on it and another does not, which is how traversal hides, and no id
 * of the API contains one. The query is the client's, never touched.
 */
export type ApiPath = { path: string; query: string } | { refused: string };

/** `/v1`, then `/`, or the end of the path */
const IN_API = /^\/v1(?:\/|$)/;
const HIDDEN_SEPARATOR = /%2f|%5c|\\/i;
const DOT = /%2e/gi;

/** `url` (origin-form, `/v1...`) as forwarded: the normalized path and the query with its `?` (or ''), or why it is refused. */
export function apiPath(url: string): ApiPath {
  const question = url.indexOf('?');
  const raw = question < 0 ? url : url.slice(0, question);
  const query = question < 0 ? '' : url.slice(question);
  if (HIDDEN_SEPARATOR.test(raw)) {
    return {
      refused:
        'the path hides a / or \\ inside a segment (%2F, %5C, or a raw \\): the proxy refuses it, since that is how a path escapes one normalizer and not another, and no id of the API contains one',
    };
  }
  const path = withoutDotSegments(raw);
  if (path === null || !IN_API.test(path)) {
    return {
      refused: `the path leaves /v1 once its . and .. segments are resolved${path === null ? '' : ` (it is ${path.slice(0, 200)})`}: the proxy forwards only paths under /v1 to the target`,
    };
  }
  return { path, query };
}

/** RFC 3986's remove_dot_segments over whole segments; null when `..` would climb above the root. */
function withoutDotSegments(path: string): string | null {
  const input = path.split('/').slice(1); // the path starts with '/'
  const out: string[] = [];
  for (let i = 0; i < input.length; i++) {
    const segment = input[i]!.replace(DOT, '.');
    const last = i === input.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..' && out.pop() === undefined) return null;
      // `/a/b/..` is `/a/`: a dot segment at the end leaves its slash
      if (last) out.push('');
      continue;
    }
    out.push(input[i]!);
  }
  return `/${out.join('/')}`;
}
