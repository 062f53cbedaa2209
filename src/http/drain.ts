import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { apiError, reasonText, type ApiError } from '../core/errors.ts';

/** What a stop did with the requests it found (sandbox.stop(), the CLI's exit line). */
export interface StopSummary {
  /** in flight when the stop began, answered by their own handlers before the deadline (or after it, once past their commit) */
  drained: number;
  /** still running at the deadline: answered 503 SANDBOX_STOPPING, their sockets closed, their handlers abandoned */
  cut: number;
  /** arrived on an open connection after the stop began: answered 503 SANDBOX_STOPPING without running */
  refused: number;
}

interface InFlight {
  request: FastifyRequest;
  reply: FastifyReply;
  /** the handler has sent its answer (onSend ran), or the reply was handed over (hijacked) */
  answered: boolean;
  /** the response is done with: written in full, or its socket closed */
  closed: boolean;
}

const cutRequests = new WeakSet<IncomingMessage>();
const streams = new WeakSet<ServerResponse>();

/**
 * True once the stop deadline answered this request 503 while its handler
 * still ran. The handler is abandoned, not stopped (JavaScript cannot stop
 * it): whatever it sends later goes nowhere, and a write it commits after
 * store.close() is refused (StoreError). Work that must be "committed whole
 * or not at all" checks this before its commit.
 */
export const wasCut = (raw: IncomingMessage): boolean => cutRequests.has(raw);

/**
 * A long-lived response (the control plane's event stream) is ended at once
 * when a stop begins, instead of being waited for until the deadline: its
 * client reconnects, and finds the sandbox gone.
 */
export function endsAtStop(res: ServerResponse): void {
  streams.add(res);
}

/**
 * A stop that drains (`stopTimeoutMs`, `--stop-timeout`): the listening socket closes and idle
 * keep-alive connections with it; each request in flight runs to its own
 * answer, which carries `Connection: close`; at the deadline the ones still
 * running are answered 503 SANDBOX_STOPPING and their sockets closed. Only
 * then may the caller close the app, stop the services and close the store.
 * A request that arrives on an open connection meanwhile is refused with the
 * same 503 before any of its hooks or handler run.
 *
 * Tracked from the listening app's onRequest hook (server.ts): every request
 * Fastify routes, /__sandbox hand-overs included. Without a listening socket
 * (`listen: false`, app.inject) nothing is tracked and a stop does not wait.
 */
export class Drain {
  #servers: Server[] = [];
  #inFlight = new Set<InFlight>();
  #stopping = false;
  #stopTimeoutMs = 0;
  #summary: StopSummary = { drained: 0, cut: 0, refused: 0 };
  #settle: (() => void) | null = null;

  /** the listening servers (one per address bound); requests are tracked from now on */
  listening(servers: Server[]): void {
    this.#servers = servers;
  }

  get stopping(): boolean {
    return this.#stopping;
  }

  /** The root hooks of the listening app: registered after the request-id hook, so a refusal carries X-Request-ID. */
  register(app: FastifyInstance): void {
    app.addHook('onRequest', (request, reply, done) => {
      if (this.#servers.length === 0) return done();
      if (this.#stopping) {
        this.#summary.refused++;
        reply.header('connection', 'close');
        return done(stoppingError('the sandbox is stopping and takes no new requests; start it again, then retry'));
      }
      this.#track(request, reply);
      done();
    });
    app.addHook('onSend', (request, _reply, payload, done) => {
      const entry = (request as TrackedRequest)[ENTRY];
      if (entry) {
        entry.answered = true;
        this.#maybeDone(entry);
      }
      done(null, payload);
    });
  }

  /**
   * Stops accepting connections, lets the requests in flight answer, up to
   * `timeoutMs`, then cuts the rest. Resolves once no tracked request is left.
   */
  async stop(timeoutMs: number): Promise<StopSummary> {
    this.#stopping = true;
    this.#stopTimeoutMs = timeoutMs;
    // Node's close() also closes the keep-alive connections that are idle now
    for (const server of this.#servers) server.close(() => undefined);
    for (const entry of this.#inFlight) this.#closeAfterAnswer(entry);
    if (this.#inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#settle = resolve;
        timer = setTimeout(resolve, timeoutMs);
      });
      clearTimeout(timer);
      this.#settle = null;
      // one past its commit (its group released, its line on the way to disk) is kept whole: a 503
      // saying nothing was kept would be untrue, so its own answer goes out once the line is durable
      for (const entry of [...this.#inFlight]) if (!entry.request.committing) this.#cut(entry);
      if (this.#inFlight.size > 0) await new Promise<void>((resolve) => (this.#settle = resolve));
      this.#settle = null;
    }
    // a connection whose answer went out before it could be marked (headers already sent) is idle by now
    for (const server of this.#servers) server.closeIdleConnections();
    return { ...this.#summary };
  }

  #track(request: FastifyRequest, reply: FastifyReply): void {
    const entry: InFlight = { request, reply, answered: false, closed: false };
    (request as TrackedRequest)[ENTRY] = entry;
    this.#inFlight.add(entry);
    reply.raw.once('close', () => {
      entry.closed = true;
      this.#maybeDone(entry);
    });
  }

  /** A response is done once it is closed and its handler answered (a client gone early does not end the handler's work). */
  #maybeDone(entry: InFlight): void {
    if (!entry.closed || !this.#inFlight.has(entry)) return;
    if (!entry.answered && !entry.reply.sent) return; // reply.sent: hijacked (a hand-over, a dropped connection)
    this.#inFlight.delete(entry);
    if (this.#stopping && !streams.has(entry.reply.raw)) this.#summary.drained++;
    if (this.#stopping && this.#inFlight.size === 0) this.#settle?.();
  }

  #closeAfterAnswer(entry: InFlight): void {
    const res = entry.reply.raw;
    if (streams.has(res)) {
      res.end();
      return;
    }
    // Node then closes the socket once this answer is written
    if (!res.headersSent) res.setHeader('connection', 'close');
  }

  /** Still running at the deadline: the 503 goes out now, then the socket closes; the handler runs on, abandoned. */
  #cut(entry: InFlight): void {
    this.#inFlight.delete(entry);
    const { request, reply } = entry;
    const res = reply.raw;
    if (res.writableEnded) return; // written in full, the socket still flushing: it answered after all
    cutRequests.add(request.raw);
    request.commitGroup?.drop(); // none of its writes is kept (docs/storage.md, "One request, one commit")
    this.#summary.cut++;
    const socket = request.raw.socket;
    if (entry.closed) return; // its client is gone already: nobody to answer
    if (res.headersSent) {
      socket?.destroy(); // half an answer already went out: only closing tells the client it is not whole
      return;
    }
    const error = stoppingError(
      `the request was still running at the stop deadline (${this.#stopTimeoutMs} ms: stopTimeoutMs, --stop-timeout); none of its writes was kept`,
    );
    const body = JSON.stringify(error.body);
    res.writeHead(503, STATUS_CODES[503], {
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      'x-request-id': request.id,
      'x-sandbox-reason': reasonText(error.reason!),
      connection: 'close',
    });
    res.end(body, () => socket?.destroy());
  }
}

const ENTRY = Symbol('drain entry');
type TrackedRequest = FastifyRequest & { [ENTRY]?: InFlight };

function stoppingError(why: string): ApiError {
  return apiError(503, 'SANDBOX_STOPPING', 'Service unavailable: the sandbox is stopping').because('SANDBOX_STOPPING', why);
}
