import { Auth } from '../core/auth.ts';
import type { Clock } from '../core/clock.ts';
import { FaultInjector } from '../core/faults.ts';
import { Idempotency } from '../core/idempotency.ts';
import { RateLimiter } from '../core/rate-limit.ts';
import { randomToken } from '../core/secrets.ts';
import { SelfGuard } from '../core/self-guard.ts';
import { Suspension } from '../core/suspension.ts';
import { isLoopback, type ResolvedOptions } from '../config.ts';
import { ORG_API_KEYS } from '../resources/organizations/collections.ts';
import type { Store } from '../storage/index.ts';

/** What stands between a request and a route: keys, limits, replays, injected faults, and the sandbox's own guards. */
export interface Guards {
  auth: Auth;
  rateLimiter: RateLimiter;
  idempotency: Idempotency;
  /** emulated suspension after repeated 429s, off by default */
  suspension: Suspension;
  faults: FaultInjector;
  /** refuses webhook URLs that aim at the sandbox itself */
  selfGuard: SelfGuard;
  /** the control-plane token when bound to a non-loopback host */
  controlToken: string | null;
}

export function buildGuards(options: ResolvedOptions, clock: Clock, store: Store): Guards {
  return {
    // organization keys are the organizations area's collection, which auth reads keys from too
    auth: new Auth(store, clock, { internalApiKey: options.internalApiKey, revocationLagMs: options.revocationLagMs, orgKeys: ORG_API_KEYS }),
    rateLimiter: new RateLimiter(clock),
    idempotency: new Idempotency(store, clock),
    suspension: new Suspension(clock, options.suspension === false ? {} : { enabled: true, ...(options.suspension === true ? {} : options.suspension) }),
    faults: new FaultInjector(options.seed, (workspaceId) => clock.nowIn(workspaceId)),
    selfGuard: new SelfGuard(),
    controlToken: isLoopback(options.host) ? null : (options.controlToken ?? randomToken(32)),
  };
}
