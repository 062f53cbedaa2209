import { randomUUID } from 'node:crypto';
import { conflict } from './errors.ts';
import type { FaultRuleInput } from './fault-rule.ts';
import { SeededRandom } from './random.ts';

/**
 * Fault injection (sandbox-only): a rule matches requests by method, path
 * pattern, workspace or key, and then answers a given status and body, adds
 * latency, or drops the connection. It applies to the next N matching
 * requests, or to each with a seeded probability, and expires after use.
 */
export type { FaultRuleInput };

export interface FaultRule extends FaultRuleInput {
  id: string;
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
 * Rules kept at most (issue 34): each /v1 request is matched against every rule, and a rule
 * without `times` or `probability` fires once and goes, but one with `probability` stays until
 * removed, so a client adding rules in a loop grew the list (and every request's cost) forever.
 */
export const MAX_FAULT_RULES = 1000;
/** compiled path patterns kept (a rule's path is any string a client sends) */
const MAX_GLOBS = 1000;

export class FaultInjector {
  private rules: FaultRule[] = [];
  private randoms = new Map<string, SeededRandom>();

  constructor(private readonly defaultSeed: number) {}

  add(input: FaultRuleInput, now: string): FaultRule {
    if (this.rules.length >= MAX_FAULT_RULES) {
      // a 409: waiting frees a place only if rules fire; removing some always does
      throw conflict(
        'CONTROL_CONFLICT',
        `This sandbox has ${this.rules.length} fault rules, its limit: remove some (DELETE /__sandbox/faults/:id, DELETE /__sandbox/faults for all, or \`sandbox fault clear\`); GET /__sandbox/faults lists them`,
      );
    }
    const rule: FaultRule = {
      ...input,
      id: `fault_${randomUUID().slice(0, 8)}`,
      remaining: input.times ?? (input.probability !== undefined ? null : 1),
      hits: 0,
      createdAt: now,
    };
    this.rules.push(rule);
    return rule;
  }

  /** The rules of a bundle (src/bundle/load.ts), as they stood when it was saved: their ids, uses left and hits. */
  restore(rules: readonly FaultRule[]): void {
    this.clear();
    this.rules = rules.slice(0, MAX_FAULT_RULES).map((rule) => ({ ...rule }));
  }

  active(): boolean {
    return this.rules.length > 0;
  }

  list(): FaultRule[] {
    return this.rules.map((r) => ({ ...r }));
  }

  remove(id: string): FaultRule | undefined {
    const rule = this.rules.find((r) => r.id === id);
    this.rules = this.rules.filter((r) => r !== rule);
    this.randoms.delete(id);
    return rule;
  }

  clear(): number {
    const n = this.rules.length;
    this.rules = [];
    this.randoms.clear();
    return n;
  }

  /** The first rule that fires for this request, consuming one use of it. */
  take(target: FaultTarget): FaultRule | null {
    for (const rule of this.rules) {
      if (!matches(rule, target)) continue;
      if (rule.probability !== undefined && this.random(rule).next() >= rule.probability) continue;
      rule.hits += 1;
      if (rule.remaining !== null) {
        rule.remaining -= 1;
        if (rule.remaining <= 0) {
          this.rules = this.rules.filter((r) => r !== rule);
          this.randoms.delete(rule.id);
        }
      }
      return { ...rule };
    }
    return null;
  }

  private random(rule: FaultRule): SeededRandom {
    let random = this.randoms.get(rule.id);
    if (!random) this.randoms.set(rule.id, (random = new SeededRandom(rule.seed ?? this.defaultSeed)));
    return random;
  }
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
