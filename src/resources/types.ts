import type { FastifyInstance, FastifyBaseLogger, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { SandboxContext } from '../context.ts';

export type ZodApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

/** One API area: its routes, registered under /v1 from the explicit list in resources/index.ts. */
export interface ResourceModule {
  name: string;
  register(app: ZodApp, ctx: SandboxContext): void;
  /**
   * The area's part of the control plane, registered under /__sandbox after the control
   * plane's own routes (src/control/index.ts); its routes are declared in the area's
   * control-contract.ts, part of the one control route table (src/control/contracts/).
   */
  control?: (app: ZodApp, ctx: SandboxContext) => void;
}
