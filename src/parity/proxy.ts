import type { AddressInfo } from 'node:net';
import { WORKSPACES } from '../core/tenancy.ts';
import { SelfGuard } from '../core/self-guard.ts';
import type { ProxyOptions } from '../config.ts';
import { isLoopback } from '../config.ts';
import { ProxyStartError, type ProxyHost } from './proxy-host.ts';
import { GLOBAL_PARTITION } from '../storage/index.ts';
import { runExchange, unreplayedExchange, yieldToClients } from './proxy-exchange.ts';
import { createForwarder } from './proxy-forward.ts';
import { proxyLookup } from './proxy-guard.ts';
import { IdPairs } from './proxy-ids.ts';
import { LearnedRecords, type KnownRows } from './proxy-record.ts';
import { EXTENSIONS, PRICING_OPTIONS } from '../resources/catalog/collections.ts';
import { PRODUCTS } from '../resources/products/collections.ts';
import { createProxyServer } from './proxy-server.ts';
import type { ParityRecorder } from './types.ts';

/**
 * `sandbox proxy` (docs/parity.md): a port the client uses instead of the real base
 * URL, with its real key. Each /v1 request goes to the target and the
 * target's answer back to the client unchanged; the same request is then
 * replayed in a sandbox workspace, and both answers go to the parity
 * recorder (`ctx.parity.recorder`). docs/parity.md.
 */
export type { ProxyHost } from './proxy-host.ts';

export interface ProxyHandle {
  /** the proxy's base URL, which clients use instead of the target's */
  url: string;
  port: number;
  /** the target's origin */
  target: string;
  /** the workspace the replays run in */
  workspaceId: string;
  /** resolves once every exchange in flight has been replayed and recorded */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

export async function startProxy(sandbox: ProxyHost, options: ProxyOptions, makeRecorder?: () => ParityRecorder): Promise<ProxyHandle> {
  const target = parseTarget(options.target);
  const host = sandbox.context.options.host;
  if (!isLoopback(host)) throw new ProxyStartError(`The parity proxy binds to loopback only, and the sandbox's host is ${host}; start it without --host`);
  const workspace = replayWorkspace(sandbox, options.workspace);
  await reportRateLimits(sandbox, workspace.id);
  const pairs = new IdPairs();
  // a reset puts the fixture row back (report mode again after it) and takes the sandbox's side of every pair away
  sandbox.context.bus.on('reset', (event) => {
    if (event.workspaceId !== undefined && event.workspaceId !== workspace.id) return;
    pairs.clear();
    void reportRateLimits(sandbox, workspace.id).catch(() => undefined);
  });
  if (makeRecorder && !sandbox.context.parity.recorder) sandbox.context.parity.recorder = makeRecorder();

  const ownGuard = new SelfGuard();
  const guards = [sandbox.context.selfGuard, ownGuard];
  const learned = options.record ? new LearnedRecords(options.record, workspace, target.origin, knownRows(sandbox, workspace.id)) : null;
  const forwarder = await createForwarder({ target, timeoutMs: options.timeoutMs, maxBodyBytes: options.maxBodyBytes, lookup: proxyLookup(guards, target) });
  let queue: Promise<void> = Promise.resolve();
  const server = createProxyServer({
    forwarder,
    allowedHosts: sandbox.context.options.allowedHosts,
    bodyLimit: Math.max(sandbox.context.options.bodyLimit, 10 * 1024 * 1024),
    sandboxRouting: (req, res) => sandbox.app.routing(req, res),
    afterAnswer: (request, answer) => {
      // the client has its answer: a replay that fails costs only its comparison, and is counted as not compared
      queue = queue
        .then(() =>
          runExchange(
            {
              sandbox,
              workspaceId: workspace.id,
              workspaceKey: workspace.key,
              pairs,
              maxBodyBytes: options.maxBodyBytes,
              onLearned: learned ? (c, row) => learned.add(c, row) : undefined,
            },
            request,
            answer,
          ).catch((err: unknown) => unreplayedExchange(request, answer, err, options.maxBodyBytes)),
        )
        .then(async (exchange) => {
          await yieldToClients(); // the comparison is the largest step: after what came in meanwhile
          sandbox.context.parity.recorder?.record(exchange);
        })
        .catch((err: unknown) =>
          process.emitWarning(`parity proxy: recording an exchange failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`),
        );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  }).catch(async (err: NodeJS.ErrnoException) => {
    await forwarder.close();
    throw err.code === 'EADDRINUSE'
      ? new ProxyStartError(`Port ${options.port} on ${host} is already in use (the proxy's port); pass another --port, or 0 for any free port`)
      : err;
  });
  const port = (server.address() as AddressInfo).port;
  ownGuard.listening(port);
  const refused = (await sandbox.context.selfGuard.urlProblem(target.href)) ?? (await ownGuard.urlProblem(target.href));
  if (refused) {
    server.close();
    await forwarder.close();
    throw new ProxyStartError(`--target ${target.origin} is this sandbox or its proxy (${refused}); give the real API's base URL`);
  }
  let stopped: Promise<void> | null = null;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    target: target.origin,
    workspaceId: workspace.id,
    settled: () => queue,
    stop: () =>
      (stopped ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // a request still waiting on a slow target gets the sandbox's stop deadline, no more
          setTimeout(() => server.closeAllConnections(), sandbox.context.options.stopTimeoutMs).unref();
        });
        await queue;
        await forwarder.close();
        await learned?.flush();
      })()),
  };
}

/** http(s), a host, no credentials, query or fragment: anything else is refused before a port opens. */
export function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProxyStartError(`--target takes the API's base URL, such as https://api.example.com, not "${raw.slice(0, 200)}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ProxyStartError(`--target must be an http:// or https:// URL, not ${url.protocol}`);
  if (url.username || url.password)
    throw new ProxyStartError('--target may not carry credentials (user:password@); the client sends its own key with each request');
  if (url.search || url.hash) throw new ProxyStartError('--target is a base URL: no query (?...) nor fragment (#...)');
  return url;
}

/** The workspace the replays run in (`--workspace`: id or name; default the first sandbox-mode fixture workspace) and its full-access key. */
function replayWorkspace(sandbox: ProxyHost, wanted: string | undefined): { id: string; name: string; currency: string; key: string } {
  const all = sandbox.workspaces;
  const found = wanted === undefined ? all.find((w) => w.mode === 'sandbox') : all.find((w) => w.id === wanted || w.name === wanted);
  if (!found) {
    const names = all.map((w) => `${w.name} (${w.id})`).join(', ');
    throw new ProxyStartError(
      wanted === undefined
        ? `The fixtures define no sandbox-mode workspace for the replays; pass --workspace <id or name> (${names || 'none defined'})`
        : `--workspace ${wanted} is not a fixture workspace; one of: ${names || 'none defined'}`,
    );
  }
  const key = found.keys.find((k) => k.scopes === null) ?? found.keys[0];
  if (!key) throw new ProxyStartError(`Workspace ${found.name} has no key to replay requests with`);
  const record = WORKSPACES.in(sandbox.context.store).get(GLOBAL_PARTITION, found.id);
  return { id: found.id, name: found.name, currency: record?.currency ?? 'USD', key: key.key };
}

/** The replays are counted against rate limits, never refused by them: the target's limits are the client's. */
async function reportRateLimits(sandbox: ProxyHost, workspaceId: string): Promise<void> {
  const repo = WORKSPACES.in(sandbox.context.store);
  const row = repo.get(GLOBAL_PARTITION, workspaceId);
  if (row && row.rateLimits !== 'report') await repo.put(GLOBAL_PARTITION, { ...row, rateLimits: 'report' });
}

/** The replay workspace's products, prices and extensions, for --record (a learned departure's product). */
function knownRows(sandbox: ProxyHost, workspaceId: string): KnownRows {
  const store = sandbox.context.store;
  return {
    product: (id) => PRODUCTS.in(store).get(workspaceId, id),
    ofProduct: (collection, productId) =>
      (collection === 'pricingOptions' ? PRICING_OPTIONS : EXTENSIONS).in(store).listWhere(workspaceId, 'productId', productId),
  };
}
