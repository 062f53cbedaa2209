import type { FastifyInstance } from 'fastify';
import type { SandboxContext } from '../context.ts';
import { CommitGroup, runInCommitGroup } from '../storage/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** the request's commit group (mutating requests, file mode): closed by the last onSend hook */
    commitGroup: CommitGroup | null;
    /**
     * Set once its group is released in onSend: the answer is made and its writes are on their
     * way to the journal, so it is committed whole and its answer must go out (drain.ts waits for
     * it at the stop deadline instead of answering 503). Resolves once they are durable.
     */
    committing: Promise<void> | null;
  }
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * One request, one commit (docs/storage.md, "One request, one commit"):
 * everything a mutating request commits (its records, the outbox rows of its
 * events, its saved Idempotency-Key outcome) is one journal line, durable before
 * the answer leaves. The group opens before the handler (preValidation: body
 * parsing leaves the async context, as for the clock) and closes in the last
 * onSend hook, after the idempotency outcome was saved (request-hooks.ts):
 * register these after registerRequestHooks. In memory there is nothing to make
 * durable, and no hook is added.
 */
export function registerCommitHooks(app: FastifyInstance, ctx: SandboxContext): void {
  if (ctx.store.path === null) return;
  app.decorateRequest('commitGroup', null);
  app.decorateRequest('committing', null);

  app.addHook('preValidation', (request, _reply, done) => {
    if (READS.has(request.method)) return done();
    const group = new CommitGroup();
    request.commitGroup = group;
    runInCommitGroup(group, done);
  });

  app.addHook('onSend', (request, _reply, payload, done) => {
    const group = request.commitGroup;
    if (!group) return done(null, payload);
    request.commitGroup = null;
    if (!group.held) {
      group.release();
      return done(null, payload);
    }
    const closing = group.close();
    request.committing = closing;
    closing.then(
      () => done(null, payload),
      (err: Error) => done(err),
    );
  });

  // an answer that never passed onSend (a dropped connection, a hijacked reply): its lines go out as they are
  app.addHook('onResponse', (request, _reply, done) => {
    request.commitGroup?.release();
    request.commitGroup = null;
    done();
  });
}
