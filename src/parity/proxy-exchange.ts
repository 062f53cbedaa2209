import { randomUUID } from 'node:crypto';
import { COLLECTION_REGISTRY } from '../resources/index.ts';
import type { Collection, StoredRow } from '../storage/index.ts';
import type { Exchange } from './types.ts';
import type { TargetAnswer } from './proxy-forward.ts';
import type { IdPairs } from './proxy-ids.ts';
import type { ProxyHost } from './proxy-host.ts';
import { learnFrom, recordsIn } from './proxy-learn.ts';
import { parseJson, replayInSandbox, targetAnswer, type ClientRequest, type TooLarge } from './proxy-replay.ts';

/**
 * One /v1 exchange after the client has its answer (docs/parity.md, "What happens to one request"): the replay in
 * the sandbox, the id pairing of a create, the learning of records the
 * sandbox did not know, and the Exchange handed to the recorder. Exchanges
 * run one after another, in the order the client's requests came, so that a
 * later request finds the ids an earlier create paired.
 */
export interface ExchangeDeps {
  sandbox: ProxyHost;
  workspaceId: string;
  workspaceKey: string;
  pairs: IdPairs;
  /** told of every record learned (the --record writer) */
  onLearned?: (collection: string, row: StoredRow) => void;
  /** --target-max-body: the most of the target's body held and inflated to compare */
  maxBodyBytes?: number;
}

/** Collections with an id prefix, longest prefix first (so `gal_file_` wins over a shorter one). */
const PREFIXED: readonly Collection[] = COLLECTION_REGISTRY.all
  .filter((c) => c.idPrefix !== null && !c.internal)
  .sort((a, b) => b.idPrefix!.length - a.idPrefix!.length);

function collectionOfId(value: string): Collection<StoredRow> | undefined {
  return PREFIXED.find((c) => value.startsWith(`${c.idPrefix}_`) && value.length > c.idPrefix!.length + 1);
}

/**
 * Lets the client's requests that arrived meanwhile go first: each step of a replay is CPU work on
 * the proxy's one thread, and between steps the poll phase reads and forwards what came in.
 */
export const yieldToClients = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function runExchange(deps: ExchangeDeps, request: ClientRequest, answer: TargetAnswer): Promise<Exchange> {
  const { sandbox, workspaceId, pairs } = deps;
  await yieldToClients();
  const { tooLarge, ...target } = targetAnswer(answer, deps.maxBodyBytes);
  const requestId = target.headers['x-request-id'] ?? `proxy_${randomUUID()}`;
  if (tooLarge) {
    // the request happened on the target: the sandbox's state follows, but there is nothing to compare with
    const replay = await replayInSandbox(sandbox.app, request, deps.workspaceKey, pairs);
    const notCompared = { reason: 'too-large' as const, bytes: tooLarge.bytes, detail: tooLargeDetail(tooLarge, deps.maxBodyBytes) };
    return { requestId, method: request.method, urlPath: request.path, target, sandbox: replay, learned: false, unknownIds: [], notCompared };
  }
  const carried = idsCarried(request);
  const unknownBefore = carried.filter((id) => pairs.sandboxIdOf(id) === undefined && !knows(sandbox, workspaceId, id));
  await yieldToClients();
  const replay = await replayInSandbox(sandbox.app, request, deps.workspaceKey, pairs);
  await yieldToClients();

  const targetOk = target.status >= 200 && target.status < 300;
  if (request.method === 'POST' && targetOk && replay.status >= 200 && replay.status < 300) pairs.pairFrom(target.body, replay.body);

  let learned = false;
  const failed: string[] = [];
  const unmapped: { id: string; fields: string[] }[] = [];
  if (request.method === 'GET' && targetOk && (replay.status === 404 || (replay.status >= 200 && replay.status < 300))) {
    // a single record the sandbox answered 404 for; or the records of a page the sandbox's page lacks
    const only = replay.status === 404 ? new Set(recordsIn(target.body).map((r) => r.id as string)) : undefined;
    const fill = { workspaceId, nowIso: sandbox.context.clock.isoIn(workspaceId), pathIds: carried };
    const outcome = await learnFrom(sandbox.context.store, fill, target.body, (id) => pairs.sandboxIdOf(id) !== undefined, only);
    learned = outcome.learned.length > 0 && (replay.status === 404 || missingFromPage(target.body, replay.body));
    for (const { collection, row } of outcome.learned) deps.onLearned?.(collection, row);
    failed.push(...outcome.failed.map((f) => f.id));
    for (const { row, unmapped: fields } of outcome.learned) if (fields.length > 0) unmapped.push({ id: row.id, fields });
    for (const { id, unmapped: fields } of outcome.failed) unmapped.push({ id, fields });
  }
  // asked again: a record learned just now is no longer unknown
  const unknownIds = [...new Set([...unknownBefore.filter((id) => !knows(sandbox, workspaceId, id)), ...failed])];
  // the replay's answer goes with an unknown id too: the recorder decides what of it compares (./not-compared.ts)
  return {
    requestId,
    method: request.method,
    urlPath: request.path,
    target,
    sandbox: replay,
    learned,
    unknownIds,
    ...(unmapped.length > 0 ? { unmapped } : {}),
  };
}

/**
 * The exchange of a request the sandbox could not replay (its replay, or the learning after it,
 * threw): the client had its answer, and the report still counts the request, not compared.
 */
export function unreplayedExchange(request: ClientRequest, answer: TargetAnswer, err: unknown, maxBodyBytes?: number): Exchange {
  const { tooLarge: _, ...target } = targetAnswer(answer, maxBodyBytes);
  const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return {
    requestId: target.headers['x-request-id'] ?? `proxy_${randomUUID()}`,
    method: request.method,
    urlPath: request.path,
    target,
    sandbox: null,
    learned: false,
    unknownIds: [],
    notCompared: { reason: 'no-replay', detail: `no replay: the sandbox could not replay it (${why})` },
  };
}

/** The report's sentence for an answer too large to compare. */
function tooLargeDetail(tooLarge: TooLarge, limit: number | undefined): string {
  const over = `--target-max-body ${limit}`;
  if (tooLarge.inflated) return `too large to compare: its ${tooLarge.inflated} body of ${tooLarge.bytes} bytes inflates past ${over}`;
  if (!tooLarge.complete)
    return `too large to compare: ${tooLarge.bytes} bytes streamed before the answer was cut off (the deadline passed, or the client or the target left), over ${over}`;
  return `too large to compare: ${tooLarge.bytes} bytes, over ${over}`;
}

/** The target's page lists a record the sandbox's page does not: a page of other records, not drift. */
function missingFromPage(targetBody: unknown, sandboxBody: unknown): boolean {
  const ours = new Set(recordsIn(sandboxBody).map((r) => r.id));
  return recordsIn(targetBody).some((r) => !ours.has(r.id));
}

function knows(sandbox: ProxyHost, workspaceId: string, id: string): boolean {
  const collection = collectionOfId(id);
  return collection === undefined || collection.in(sandbox.context.store).has(workspaceId, id);
}

/** Every string of the request that is an id of a collection we hold: path segments, query values, JSON body strings. */
export function idsCarried(request: ClientRequest): string[] {
  const found = new Set<string>();
  const consider = (value: string) => {
    if (collectionOfId(value)) found.add(value);
  };
  for (const segment of request.path.split('/')) {
    try {
      consider(decodeURIComponent(segment));
    } catch {
      // not an id
    }
  }
  for (const [, value] of new URLSearchParams(request.query)) consider(value);
  const walk = (value: unknown): void => {
    if (typeof value === 'string') consider(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(walk);
  };
  if (request.body.length > 0) walk(parseJson(request.body));
  return [...found];
}
