import type { FastifyInstance } from 'fastify';
import type { RunningService, SandboxContext } from '../context.ts';
import { clockIsSaved, wholeClockOps } from '../core/saved-clock.ts';
import type { ResolvedOptions } from '../config.ts';
import type { LazyControlPlane } from '../http/control-forward.ts';
import { Drain } from '../http/drain.ts';
import type { ResourceModule } from '../resources/types.ts';
import { buildApp } from '../server.ts';
import { SandboxError } from './sandbox-error.ts';
import type { OpenedStorage } from './storage.ts';

/** how long a listening sandbox waits before building its control plane unasked (http/control-forward.ts) */
const CONTROL_PREWARM_MS = 100;

export interface Servers {
  app: FastifyInstance;
  /** lets the requests in flight answer on a stop (src/http/drain.ts) */
  drain: Drain;
  /** base URL, or '' when not listening */
  url: string;
  port: number;
}

/**
 * The app that serves /v1 and hands /__sandbox to the control plane, listening when asked. The
 * port is ours before a new database file is written (and on disk before this returns); a start
 * that fails from here stops what it started, and throws the first error.
 */
export async function startServers(
  ctx: SandboxContext,
  resources: readonly ResourceModule[],
  controlPlane: LazyControlPlane,
  storage: OpenedStorage,
  running: RunningService[],
): Promise<Servers> {
  const { options, clock, store } = ctx;
  const { engine } = storage;
  const drain = new Drain();
  const app = buildApp(ctx, resources, controlPlane, drain);
  await app.ready();
  let url = '';
  const abort = async (err: unknown): Promise<never> => {
    clock.dispose();
    await app.close().catch(() => undefined);
    for (const service of running.reverse()) await Promise.resolve(service.stop()).catch(() => undefined);
    await engine.discardHeld().catch(() => undefined); // nothing acknowledged yet: a new file is left unwritten
    clock.release();
    throw err;
  };
  if (options.listen) {
    try {
      url = await app.listen({ port: options.port, host: options.host });
    } catch (err) {
      await abort(listenError(err, options));
    }
  }
  if (url) drain.listening([app.server]);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  ctx.selfGuard.listening(port);
  if (url) url = `http://${options.host.includes(':') ? `[${options.host.replace(/^\[|\]$/g, '')}]` : options.host}:${port}`;
  try {
    await engine.writeHeld();
    await storage.seeded;
    // a clock moved on, set aside (--fresh-clock) or never saved (an older file) is saved now
    if (engine.path && !clockIsSaved(clock, store)) await store.commit(wholeClockOps(clock, store));
  } catch (err) {
    await abort(err);
  }
  if (url) controlPlane.prewarmAfter(CONTROL_PREWARM_MS);
  return { app, drain, url, port };
}

function listenError(err: unknown, options: ResolvedOptions): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new SandboxError(`Port ${options.port} on ${options.host} is already in use`, {
      option: 'port',
      text: (name) => `stop the other process or pass ${name} (0 picks a free port)`,
    });
  if (code === 'EACCES') return new SandboxError(`Not allowed to listen on ${options.host}:${options.port}; pick a port above 1023`);
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new SandboxError(`Cannot listen on host ${options.host}: no such local address`);
  return err as Error;
}
