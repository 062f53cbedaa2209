import type { Clock } from './clock.ts';

/**
 * Emulated suspension (API description, "Limits": "excessive violations may
 * lead to temporary suspension of access"). The description gives no
 * numbers; the defaults below are the sandbox's (`x-sandbox-inferred`,
 * docs/api-notes.md). Off by default, so it never surprises: turned on with
 * `--suspension` or `PUT /__sandbox/suspension`.
 *
 * A workspace that collects more than `maxViolations` 429s within `windowMs`
 * of its own clock is suspended for `durationMs` of its own clock; while
 * suspended every request gets 429 with `retry_after` at the suspension's end.
 */
export interface SuspensionSettings {
  enabled: boolean;
  maxViolations: number;
  windowMs: number;
  durationMs: number;
}

export const DEFAULT_SUSPENSION: SuspensionSettings = { enabled: false, maxViolations: 20, windowMs: 60_000, durationMs: 5 * 60_000 };

interface WorkspaceRecord {
  violations: number[];
  suspendedUntil: number;
}

export class Suspension {
  settings: SuspensionSettings;
  private readonly workspaces = new Map<string, WorkspaceRecord>();

  constructor(
    private readonly clock: Clock,
    initial: Partial<SuspensionSettings> = {},
  ) {
    this.settings = { ...DEFAULT_SUSPENSION, ...initial };
  }

  configure(change: Partial<SuspensionSettings>): SuspensionSettings {
    this.settings = { ...this.settings, ...change };
    if (!this.settings.enabled) this.workspaces.clear();
    return this.settings;
  }

  /** The end of the workspace's suspension (ms, its own clock), or null when it is not suspended. */
  suspendedUntil(workspaceId: string): number | null {
    if (!this.settings.enabled) return null;
    const until = this.workspaces.get(workspaceId)?.suspendedUntil ?? 0;
    return until > this.clock.nowIn(workspaceId) ? until : null;
  }

  /** Counts a 429; returns the end of the suspension it started, or null. */
  violation(workspaceId: string): number | null {
    if (!this.settings.enabled) return null;
    const now = this.clock.nowIn(workspaceId);
    let record = this.workspaces.get(workspaceId);
    if (!record) this.workspaces.set(workspaceId, (record = { violations: [], suspendedUntil: 0 }));
    record.violations = record.violations.filter((at) => at > now - this.settings.windowMs);
    record.violations.push(now);
    if (record.violations.length <= this.settings.maxViolations) return null;
    record.violations = [];
    record.suspendedUntil = now + this.settings.durationMs;
    return record.suspendedUntil;
  }

  /** Workspaces suspended now, with the end of their suspension. */
  suspended(): { workspaceId: string; until: string }[] {
    const out = [];
    for (const workspaceId of this.workspaces.keys()) {
      const until = this.suspendedUntil(workspaceId);
      if (until !== null) out.push({ workspaceId, until: new Date(until).toISOString() });
    }
    return out;
  }

  forget(workspaceId?: string): void {
    if (workspaceId === undefined) this.workspaces.clear();
    else this.workspaces.delete(workspaceId);
  }
}
