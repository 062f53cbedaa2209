import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { ControlClient, type ClockState, type WorkspaceSummary } from '../../src/control/client.ts';
import { defineRoutes, type RouteData, type RouteInput } from '../../src/http/route-table/contract.ts';
import { serve } from '../../src/http/route-table/serve.ts';
import { CONTROL_ROUTES } from '../../src/control/contracts/index.ts';
import type { ClockStateSchema, WorkspaceViewSchema } from '../../src/control/contracts/plane.ts';
import type { ZodApp } from '../../src/http/zod-app.ts';

/**
 * Drift between the control client and the server is a
 * type error. The checks are types: `npm run typecheck` (tsc over test/ too)
 * fails when an `expectTypeOf` does not hold or a `@ts-expect-error` line
 * compiles cleanly, i.e. when client and server could disagree unnoticed.
 * Vitest runs this file as well, so the calls below must not touch a network.
 */
const client = new ControlClient({ url: 'http://127.0.0.1:9' });

/** Never called: it only has to compile (or, on the marked lines, not compile). */
function serverDrift(app: ZodApp) {
  // @ts-expect-error a handler answering a clock without nowMs does not match GET /clock's schema
  serve(app, CONTROL_ROUTES.clock, async () => ({ mode: 'real' as const, now: '2026-01-01T00:00:00.000Z', pendingTimers: 0 }));
  // @ts-expect-error a handler answering an unwrapped value of another type
  serve(app, CONTROL_ROUTES.eventTypes, async () => 'booking.created');
  serve(app, CONTROL_ROUTES.clock, async () => ({ mode: 'manual' as const, now: '2026-01-01T00:00:00.000Z', nowMs: 0, pendingTimers: 0, advancedMs: 0 }));
  serve(app, CONTROL_ROUTES.advanceClock, async (request) => {
    expectTypeOf(request.body).toEqualTypeOf<{ ms: number }>();
    // @ts-expect-error the body has no `seconds`: the handler reads only what the route's schema parses
    void request.body.seconds;
    return { mode: 'manual' as const, now: '', nowMs: request.body.ms, pendingTimers: 0, advancedMs: request.body.ms };
  });
  // @ts-expect-error a workspace without `created` and `templateId` is not what the route promises
  serve(app, CONTROL_ROUTES.workspace, async (request) => {
    expectTypeOf(request.params).toEqualTypeOf<{ id: string }>();
    return { id: request.params.id, name: 'x', mode: 'live' as const, keys: [] };
  });
}

function clientDrift() {
  // @ts-expect-error POST /clock/advance takes {ms}; the client cannot send another body
  void client.request(CONTROL_ROUTES.advanceClock, { body: { seconds: 1 } });
  // @ts-expect-error GET /workspaces/:id needs its id
  void client.request(CONTROL_ROUTES.workspace, {});
  // @ts-expect-error GET /deliveries filters by a status of the outbox, not any string
  void client.deliveries({ status: 'delivered' });
  // @ts-expect-error a client of a route with no body cannot send one
  void client.request(CONTROL_ROUTES.clock, { body: { ms: 1 } });
}

describe('the control-plane contract, at the type level', () => {
  it("the client's answers are the route schemas' output types", () => {
    expectTypeOf<Awaited<ReturnType<ControlClient['clock']>>>().toEqualTypeOf<z.output<typeof ClockStateSchema>>();
    expectTypeOf<ClockState>().toEqualTypeOf<z.output<typeof ClockStateSchema>>();
    expectTypeOf<Awaited<ReturnType<ControlClient['workspaces']>>>().toEqualTypeOf<z.output<typeof WorkspaceViewSchema>[]>();
    expectTypeOf<WorkspaceSummary>().toEqualTypeOf<z.output<typeof WorkspaceViewSchema>>();
    // a function that is never called: the type of its answer is checked, no request is sent
    const health = () => client.request(CONTROL_ROUTES.health);
    expectTypeOf<Awaited<ReturnType<typeof health>>>().toEqualTypeOf<{ status: 'ok'; uptimeMs: number; now: string; readOnly?: string | undefined }>();
  });

  it('a route declared once types both sides: change its schema and both follow', () => {
    const routes = defineRoutes({
      echo: {
        method: 'POST',
        path: '/echo/:id',
        params: z.object({ id: z.string() }),
        body: z.object({ n: z.number() }),
        data: z.object({ id: z.string(), n: z.number() }),
      },
    });
    expectTypeOf<RouteData<typeof routes.echo>>().toEqualTypeOf<{ id: string; n: number }>();
    expectTypeOf<RouteInput<typeof routes.echo>['params']>().toEqualTypeOf<{ id: string }>();
    expectTypeOf<RouteInput<typeof routes.echo>['body']>().toEqualTypeOf<{ n: number }>();
    void serverDrift;
    void clientDrift;
  });
});
