import { BlockList, isIP } from 'node:net';
import { apiError, type ApiError } from './errors.ts';

/**
 * What a web page in the developer's browser may not do to a sandbox on this
 * machine (docs/architecture.md, "Request classification and the
 * guards"; docs/divergences.md, "Transport and authentication"):
 *
 * - DNS rebinding: a page on `attacker.example`, whose owner re-points the
 *   name at 127.0.0.1, becomes same-origin with the sandbox and could read
 *   and drive it. A sandbox bound to loopback therefore answers only a `Host`
 *   that names a loopback address (`localhost`, `*.localhost`, 127.0.0.0/8,
 *   `[::1]`) or a host the user allows (`--allowed-host`), the rule of Vite's
 *   `server.allowedHosts` and webpack-dev-server's `allowedHosts`.
 * - Cross-site requests: any page can send a "simple" request (GET, or POST
 *   with no body or a form body) without a CORS preflight. The control plane
 *   refuses a request whose `Origin` is another origin, or whose
 *   `Sec-Fetch-Site` says another site sent it, and a POST that is not
 *   `Content-Type: application/json`, which no page can send without a
 *   preflight (and the sandbox grants no preflight).
 *
 * Pure functions of the headers and the options; the hooks are in
 * src/http/request-hooks.ts (Host, every request) and src/http/control-scope.ts
 * (Origin and POST, the control plane).
 */
export interface HostRules {
  /** host names the user allows besides loopback (`--allowed-host`); `.example.test` allows its subdomains too */
  allowedHosts: readonly string[];
}

/** Host[:port] as a browser or a client sends it: a name, an IPv4 or a bracketed IPv6, nothing else (no `@`, `/`, spaces). */
const HOST_HEADER = /^(?:\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/i;

/**
 * The host name of a Host header, normalised as a browser's URL parser does
 * it (case, IPv4 spellings such as `127.1`, IPv6 compression); null when the
 * value is not a host at all. A trailing dot is kept: callers compare names
 * without it.
 */
export function hostnameOf(hostHeader: string): string | null {
  if (!HOST_HEADER.test(hostHeader)) return null;
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return null;
  }
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4'); // also matches ::ffff:127.x.y.z
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * A normalised host name that always means this machine. `localhost` and
 * `*.localhost` are reserved for loopback (RFC 6761: browsers answer them
 * without DNS, and no DNS owner can claim them), and so is the fully
 * qualified `localhost.`. An IP literal cannot be rebound at all, but only
 * loopback ones reach a sandbox bound to loopback without a proxy.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const name = withoutTrailingDot(hostname);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const address = name.replace(/^\[|\]$/g, '');
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** The host names of `--allowed-host` values, lowercased, without a port or a trailing dot; `.name` kept as a suffix rule. */
export function normaliseAllowedHost(value: string): string | null {
  const suffix = value.startsWith('.');
  const hostname = hostnameOf(suffix ? value.slice(1) : value);
  if (!hostname || /:\d+$/.test(value)) return null;
  return `${suffix ? '.' : ''}${withoutTrailingDot(hostname)}`;
}

export function isAllowedHostname(hostname: string, allowedHosts: readonly string[]): boolean {
  const name = withoutTrailingDot(hostname);
  return allowedHosts.some((allowed) => (allowed.startsWith('.') ? name === allowed.slice(1) || name.endsWith(allowed) : name === allowed));
}

/**
 * Why this Host may not reach the sandbox, as the 403 to answer; null when it
 * may. No Host at all (HTTP/1.0) is answered: every browser sends one, so a
 * request without it comes from no web page.
 */
export function hostRefusal(hostHeader: string | undefined, rules: HostRules): ApiError | null {
  if (hostHeader === undefined) return null;
  const hostname = hostnameOf(hostHeader);
  if (hostname && (isLoopbackHostname(hostname) || isAllowedHostname(hostname, rules.allowedHosts))) return null;
  const shown = hostname ? withoutTrailingDot(hostname) : hostHeader.slice(0, 100);
  return apiError(
    403,
    'HOST_NOT_ALLOWED',
    `Blocked request: this host (${JSON.stringify(shown)}) is not allowed. A sandbox bound to loopback answers only localhost, 127.0.0.0/8 and [::1], against DNS rebinding; to allow this host, start it with --allowed-host ${hostname ? withoutTrailingDot(hostname) : '<name>'} (createSandbox option allowedHosts)`,
  );
}

/**
 * Why a control-plane request may not be served, as the 403 to answer; null
 * when it may. `Origin` must be the sandbox's own: scheme, host and port all
 * those of the request (`http:`, the only scheme the sandbox serves, and its
 * `Host`), as a browser compares origins. An `--allowed-host` name makes its
 * Host reachable (hostRefusal), not its Origin: `http://devbox:9999` is another
 * origin than `devbox:4010`, and `b.example.test` another than
 * `a.example.test`, whatever the rules allow, so a page on another port or a
 * sibling subdomain may not drive the sandbox. `Origin: null` (a
 * sandboxed frame, a file:// page) is another origin. `Sec-Fetch-Site:
 * cross-site` is refused, and so is `same-site` (a page on another port of
 * localhost) unless its Origin is the sandbox's own. `same-origin` and `none`
 * (typed in the address bar) pass, as does a request with neither header (not
 * a browser).
 */
export function crossOriginRefusal(headers: { origin?: string | undefined; host?: string | undefined; site?: string | undefined }): ApiError | null {
  const { origin, site } = headers;
  const originOk = origin !== undefined && isOwnOrigin(origin, headers.host);
  if (origin !== undefined && !originOk) {
    const own = headers.host ? `http://${headers.host}` : 'its own';
    return crossOrigin(
      `Blocked cross-origin request: the control plane answers only its own origin (${own}), and this one comes from ${JSON.stringify(origin.slice(0, 200))}; a web page may not drive the sandbox. Use the CLI, the control client or curl; behind a proxy, have it forward the page's own Host (allowed with --allowed-host <name>)`,
    );
  }
  if (site === 'cross-site' || (site === 'same-site' && !originOk)) {
    return crossOrigin(
      `Blocked cross-site request (Sec-Fetch-Site: ${site}): a web page may not drive the sandbox's control plane. Use the CLI, the control client or curl, or open the URL from the address bar`,
    );
  }
  return null;
}

/**
 * A control-plane POST must say `Content-Type: application/json` (an empty
 * body is fine): a page can send a POST without a preflight only as
 * text/plain, a form, or with no body and no type, so this refuses every
 * cross-site POST even from a browser that sends no Origin. PUT, PATCH and
 * DELETE always need a preflight, which the sandbox never grants.
 */
export function formPostRefusal(method: string, contentType: string | undefined, controlUrl: string): ApiError | null {
  if (method !== 'POST') return null;
  if (contentType !== undefined && contentType.split(';')[0]!.trim().toLowerCase() === 'application/json') return null;
  return apiError(
    415,
    'UNSUPPORTED_MEDIA_TYPE',
    `${contentType ? `Unsupported Content-Type ${JSON.stringify(contentType.slice(0, 100))}` : 'No Content-Type'}: a control-plane POST must be sent with Content-Type: application/json, even with no body (so that no web page can send it), e.g. curl -X POST -H 'content-type: application/json' ${controlUrl}`,
  );
}

/** Same origin as a browser decides it: the Origin's scheme is http and its host and port are the Host's, after the URL parser's normalisation (case, `127.1`, a default port). */
function isOwnOrigin(origin: string, hostHeader: string | undefined): boolean {
  if (hostHeader === undefined || hostnameOf(hostHeader) === null) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // `null`, or not a URL
  }
  return url.protocol === 'http:' && url.host === new URL(`http://${hostHeader}`).host;
}

const crossOrigin = (message: string) => apiError(403, 'CROSS_ORIGIN_REFUSED', message);

const withoutTrailingDot = (name: string) => (name.endsWith('.') ? name.slice(0, -1) : name);
