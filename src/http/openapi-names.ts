/**
 * Names for the OpenAPI document (docs/api-notes.md "The OpenAPI document"): every operation gets an
 * operationId, a summary and a tag, so code generators (openapi-typescript,
 * openapi-generator) produce stable, readable clients. Derived from the route
 * when the route does not name them itself (`config.operationId`).
 */
const ACTIONS = new Set([
  'reset',
  'restore',
  'advance',
  'replay',
  'exhaust',
  'seed',
  'import',
  'export',
  'revoke',
  'confirm',
  'start',
  'set',
  'price',
  'emit',
  'resend',
]);
const IRREGULAR: Record<string, string> = { people: 'person', policies: 'policy', 'api-keys': 'api-key', matches: 'match' };

const pascal = (segment: string) =>
  segment
    .replace(/^_+/, '')
    .split(/[-_.]/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');

const singular = (segment: string) =>
  IRREGULAR[segment] ??
  (segment.endsWith('ies') ? `${segment.slice(0, -3)}y` : segment.endsWith('s') && !segment.endsWith('ss') ? segment.slice(0, -1) : segment);

/** `GET /v1/products` -> listProducts, `GET /v1/products/{id}` -> getProduct, `POST /__sandbox/snapshots/{name}/restore` -> restoreSandboxSnapshot. */
export function deriveOperationId(method: string, path: string): string {
  const parts = path.split('/').filter(Boolean);
  const control = parts[0] === '__sandbox';
  const rest = parts.slice(1);
  const endsWithParam = rest.length > 0 && rest[rest.length - 1]!.startsWith('{');
  const statics: string[] = [];
  rest.forEach((part, i) => {
    if (part.startsWith('{')) return;
    const followedByParam = rest[i + 1]?.startsWith('{') ?? false;
    statics.push(followedByParam || (endsWithParam && i === rest.length - 2) ? singular(part) : part);
  });
  const last = statics[statics.length - 1];
  let verb: string;
  if (method === 'POST' && last && ACTIONS.has(last) && !endsWithParam) {
    statics.pop();
    verb = last;
  } else {
    verb = { GET: endsWithParam ? 'get' : 'list', POST: 'create', PATCH: 'update', PUT: 'replace', DELETE: 'delete' }[method] ?? method.toLowerCase();
    // POST to a collection creates one of it: createBooking, not createBookings
    if (verb === 'create' && last && !endsWithParam) statics[statics.length - 1] = singular(last);
  }
  if (verb === 'list' && statics.length > 0 && !rest.some((p) => p.startsWith('{'))) {
    // a GET of a fixed resource that is not a collection (health, state, clock) reads better as get
    const noun = statics[statics.length - 1]!;
    if (singular(noun) === noun) verb = 'get';
  }
  return verb + (control ? 'Sandbox' : '') + statics.map((s) => pascal(s)).join('');
}

/** The API area of a path: its first segment after /v1, or `sandbox <first segment>` for the control plane. */
export function tagOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  const area = parts[1] && !parts[1].startsWith('{') ? parts[1] : 'root';
  return parts[0] === '__sandbox' ? `sandbox ${area}` : area;
}

export const REASONS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};
