import { randomUUID } from 'node:crypto';
import { conflict } from './errors.ts';
import { parseDuration } from './duration.ts';
import type { DeliveryFaultAction, FaultRuleInput, FaultTargetKind } from './fault-rule.ts';
import { deliveryActionsOf } from './fault-rule.ts';
import { SeededRandom } from './random.ts';

/**
 * Fault injection (sandbox-only): a request rule matches requests by method,
 * path pattern, workspace or key, and then answers a given status and body,
 * adds latency, or drops the connection. It applies to the next N matching
 * requests, or to each with a seeded probability, and expires after use. A
 * delivery rule is kept here too, and taken by the webhook dispatcher
 * (src/webhooks/delivery-faults.ts), which knows what a delivery is.
 */
export type { FaultRuleInput };

export interface FaultRule extends Omit<FaultRuleInput, 'holdUntil'> {
  id: string;
  target: FaultTargetKind;
  /** a delivery rule's outage end: an ISO time on its workspace's clock (the global one without a workspace) */
  holdUntil?: string;
  /** matches left; null = unlimited (probability rules) */
  remaining: number | null;
  hits: number;
  createdAt: string;
}

export interface FaultTarget {
  method: string;
  path: string;
  workspaceId: string | null;
  keyId: string | null;
  keyPrefix: string | null;
}

/**
 * Rules kept at most: each /v1 request is matched against every rule, and a rule
 * without `times` or `probability` fires once and goes, but one with `probability` stays until
 * removed, so a client adding rules in a loop would grow the list (and every request's cost) forever.
 */
export const MAX_FAULT_RULES = 1000;
/** compiled path patterns kept (a rule's path is any string a client sends) */
const MAX_GLOBS = 1000;

/** A delivery rule that fired: the rule as it stood, and which of its matches this was (1 for the first). */
export interface DeliveryFaultHit {
  rule: FaultRule;
  action: DeliveryFaultAction;
  /** the rule's seed (the sandbox's when it has none): with `hit`, it seeds what this delivery does */
  seed: number;
  hit: number;
}

/**
 * Delivery actions on one event (duplicate, reorder, drop) fire once by default, as a request
 * rule does; the network's conditions (latency, an outage's hold) last until cleared, or until
 * the hold ends. `times` and `probability` say otherwise for any of them.
 */
const LASTING: readonly DeliveryFaultAction[] = ['latency', 'hold'];

export class FaultInjector {
  private rules: FaultRule[] = [];
  private requestRules = 0;
  private randoms = new Map<string, SeededRandom>();

  /** `nowIn`: the sandbox clock of a workspace (null: the global one), for the holds' ends */
  constructor(
    private readonly defaultSeed: number,
    private readonly nowIn: (workspaceId: string | null) => number,
  ) {}

  add(input: FaultRuleInput, now: string): FaultRule {
    if (this.rules.length >= MAX_FAULT_RULES) {
      // a 409: waiting frees a place only if rules fire; removing some always does
      throw conflict(
        'CONTROL_CONFLICT',
        `This sandbox has ${this.rules.length} fault rules, its limit: remove some (DELETE /__sandbox/faults/:id, DELETE /__sandbox/faults for all, or \`sandbox fault clear\`); GET /__sandbox/faults lists them`,
      );
    }
    const target = input.target ?? 'request';
    const lasting = target === 'delivery' && deliveryActionsOf(input).some((a) => LASTING.includes(a));
    const { holdUntil, ...rest } = input;
    const rule: FaultRule = {
      ...rest,
      target,
      ...(holdUntil !== undefined ? { holdUntil: holdEnd(holdUntil, now) } : {}),
      id: `fault_${randomUUID().slice(0, 8)}`,
      remaining: input.times ?? (input.probability !== undefined || lasting ? null : 1),
      hits: 0,
      createdAt: now,
    };
    this.rules.push(rule);
    if (target === 'request') this.requestRules++;
    return { ...rule };
  }

  /** The rules of a bundle (src/bundle/load.ts), as they stood when it was saved: their ids, uses left and hits. */
  restore(rules: readonly FaultRule[]): void {
    this.clear();
    this.rules = rules.slice(0, MAX_FAULT_RULES).map((rule) => ({ ...rule, target: rule.target ?? 'request' }));
    this.requestRules = this.rules.filter((rule) => rule.target === 'request').length;
  }

  /** Whether any request rule is set: a /v1 request awaits the rules only then (src/http/api-scope.ts). */
  active(): boolean {
    return this.requestRules > 0;
  }

  /** Whether any delivery rule is set: a new delivery is matched against the rules only then. */
  hasDeliveryRules(): boolean {
    return this.rules.length > this.requestRules;
  }

  list(): FaultRule[] {
    this.retireEndedHolds();
    return this.rules.map((r) => ({ ...r }));
  }

  remove(id: string): FaultRule | undefined {
    const rule = this.rules.find((r) => r.id === id);
    if (rule) this.retire(rule);
    return rule;
  }

  /** Removes every rule; answers the ones removed (an outage's rule that has ended was gone already). */
  clear(): FaultRule[] {
    this.retireEndedHolds();
    const removed = this.rules;
    this.rules = [];
    this.requestRules = 0;
    this.randoms.clear();
    return removed;
  }

  /** The first request rule that fires for this request, consuming one use of it. */
  take(target: FaultTarget): FaultRule | null {
    for (const rule of this.rules) {
      if (rule.target !== 'request' || !matches(rule, target)) continue;
      if (this.fires(rule)) return { ...rule };
    }
    return null;
  }

  /**
   * The first delivery rule that `matches` and fires for a new delivery, consuming one use of
   * it. Rules are tried in the order they were added, and draw from their seeded sequence only
   * when they match, so the same events under the same rules fire the same way in every run.
   */
  takeDelivery(matches: (rule: FaultRule) => boolean): DeliveryFaultHit | null {
    this.retireEndedHolds();
    for (const rule of this.rules) {
      if (rule.target !== 'delivery' || !matches(rule)) continue;
      if (this.fires(rule)) return { rule: { ...rule }, action: deliveryActionsOf(rule)[0]!, seed: rule.seed ?? this.defaultSeed, hit: rule.hits };
    }
    return null;
  }

  /** Consumes one use of a matching rule when its probability (if any) draws it. */
  private fires(rule: FaultRule): boolean {
    if (rule.probability !== undefined && this.random(rule).next() >= rule.probability) return false;
    rule.hits += 1;
    if (rule.remaining !== null) {
      rule.remaining -= 1;
      if (rule.remaining <= 0) this.retire(rule);
    }
    return true;
  }

  private retire(rule: FaultRule): void {
    this.rules = this.rules.filter((r) => r !== rule);
    if (rule.target === 'request') this.requestRules--;
    this.randoms.delete(rule.id);
  }

  /** An outage's rule goes when its hold has ended: later deliveries are sent as usual. */
  private retireEndedHolds(): void {
    for (const rule of this.rules) {
      if (rule.holdUntil !== undefined && Date.parse(rule.holdUntil) <= this.nowIn(rule.workspaceId ?? null)) this.retire(rule);
    }
  }

  private random(rule: FaultRule): SeededRandom {
    let random = this.randoms.get(rule.id);
    if (!random) this.randoms.set(rule.id, (random = new SeededRandom(seedText(rule, rule.seed ?? this.defaultSeed))));
    return random;
  }
}

/**
 * What a rule's generator is seeded with. A request rule keeps its bare seed (the sequence its
 * seed has always given). A delivery rule's seed is spread through a longer text first: from a
 * small bare seed the generator starts with long runs (seed 2 draws 0.90 0.81 0.78 0.86 0.72
 * 0.89 0.65 0.93), so a rule of probability 0.5 touched none of 8 events.
 */
const seedText = (rule: FaultRule, seed: number): number | string => (rule.target === 'delivery' ? `delivery fault rule:${seed}` : seed);

/** `holdUntil` as given (an ISO time, a duration, or ms) -> the ISO time it ends, from `now`. */
function holdEnd(given: string | number, now: string): string {
  if (typeof given === 'number') return new Date(Date.parse(now) + given).toISOString();
  const at = Date.parse(given);
  if (/^\d{4}-\d{2}-\d{2}/.test(given) && !Number.isNaN(at)) return new Date(at).toISOString();
  return new Date(Date.parse(now) + parseDuration(given)).toISOString();
}

function matches(rule: FaultRule, t: FaultTarget): boolean {
  if (rule.method && rule.method !== t.method) return false;
  if (rule.path && !globToRegExp(rule.path).test(t.path.split('?')[0]!)) return false;
  if (rule.workspaceId && rule.workspaceId !== t.workspaceId) return false;
  if (rule.key && rule.key !== t.keyId && rule.key !== t.keyPrefix) return false;
  return true;
}

const globCache = new Map<string, RegExp>();
export function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (!re) {
    const source = glob
      .split('**')
      .map((part) =>
        part
          .split('*')
          .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]*'),
      )
      .join('.*');
    // the oldest pattern goes first: the rules' own patterns are the ones asked for again
    if (globCache.size >= MAX_GLOBS) globCache.delete(globCache.keys().next().value!);
    globCache.set(glob, (re = new RegExp(`^${source}/?$`)));
  }
  return re;
}
