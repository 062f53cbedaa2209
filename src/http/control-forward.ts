import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ControlPlane } from '../context.ts';
import { CONTROL_PREFIX } from '../core/paths.ts';

/**
 * The control plane is an app of its own (control/app.ts), built on the first
 * /__sandbox request rather than at start: its 55 routes, their schemas and
 * their code are about a third of a start's work, and most starts are
 * followed by /v1 calls (docs/benchmarks.md "Start-up"). The
 * listening app hands every /__sandbox request to it whole: the raw request,
 * body unread, and the raw response, so the control app's own hooks, parser,
 * size limit, 404 and error bodies answer it exactly as when both were one app.
 */
export class LazyControlPlane implements ControlPlane {
  #built: FastifyInstance | null = null;
  #building: Promise<FastifyInstance> | null = null;
  #prewarm: NodeJS.Timeout | null = null;

  constructor(private readonly build: () => Promise<FastifyInstance>) {}

  /** the app once built (the hand-over then needs no promise) */
  get built(): FastifyInstance | null {
    return this.#built;
  }

  app(): Promise<FastifyInstance> {
    if (this.#built) return Promise.resolve(this.#built);
    this.#building ??= this.build().then(
      (app) => (this.#built = app),
      (err: unknown) => {
        this.#building = null; // the next request tries again
        throw err;
      },
    );
    return this.#building;
  }

  async ready(): Promise<void> {
    await this.app();
  }

  /**
   * Builds it in the background once the sandbox has listened for `ms`, so the
   * first control call of a test run does not pay for it, while the first /v1
   * request right after start does not wait behind it. A failure is left to
   * the next request to report.
   */
  prewarmAfter(ms: number): void {
    this.#prewarm = setTimeout(() => {
      this.#prewarm = null;
      this.app().catch(() => undefined);
    }, ms);
    this.#prewarm.unref();
  }

  async close(): Promise<void> {
    if (this.#prewarm) clearTimeout(this.#prewarm);
    const app = this.#built ?? (await this.#building?.catch(() => null));
    await app?.close();
  }
}

function handOver(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  app.routing(request.raw, reply.raw);
}

/** `/__sandbox` and everything under it, every method: handed to the control plane's app. */
export function registerControlForward(app: FastifyInstance, control: LazyControlPlane): void {
  app.register(async (scope) => {
    // the body stays unread: the control app parses it (or refuses it) with its own limits
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    // not an API request: kept out of the request log here, logged (or not) by the control app
    scope.addHook('onRequest', (request, _reply, done) => {
      request.area = 'control';
      done();
    });
    const forward = (request: FastifyRequest, reply: FastifyReply): Promise<void> | void => {
      const built = control.built;
      if (built) return handOver(built, request, reply);
      return control.app().then((ready) => handOver(ready, request, reply));
    };
    for (const url of [CONTROL_PREFIX, `${CONTROL_PREFIX}/*`]) scope.all(url, { config: { forward: true } }, forward);
  });
}
