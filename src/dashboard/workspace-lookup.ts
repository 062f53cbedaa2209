import type { WorkspaceSummary } from '../control/client.ts';
import type { FeedItem } from './types.ts';

/** The workspace a stream item belongs to, when it names one. */
export function workspaceOf(item: FeedItem): string | null {
  switch (item.kind) {
    case 'request':
      return item.entry.workspaceId ?? null;
    case 'domain':
      return item.event.workspaceId || null;
    case 'delivery':
      return item.update.workspaceId;
    case 'rate-limit':
      return item.change.bucket.startsWith('workspace:') ? item.change.bucket.slice('workspace:'.length) : null;
    default:
      return null;
  }
}

/**
 * Names for workspaces created after the dashboard connected (`POST /__sandbox/workspaces`
 * sends no stream event): the first time an unknown id shows on the stream, the workspaces
 * are read again, one read at a time, so a new workspace shows by its name rather than
 * `wksp_47a39132-22ab-…`. An id is asked about once; one that is still unknown
 * afterwards (a deleted workspace) is not asked about again until the next connect.
 */
export class WorkspaceLookup {
  private readonly asked = new Set<string>();
  private reading: Promise<void> | null = null;
  private readAgain = false;

  constructor(
    private readonly read: () => Promise<WorkspaceSummary[]>,
    private readonly found: (list: WorkspaceSummary[]) => void,
  ) {}

  /** The ids the dashboard already has names for (the initial load). */
  known(ids: Iterable<string>): void {
    for (const id of ids) this.asked.add(id);
  }

  see(item: FeedItem): void {
    const id = workspaceOf(item);
    if (id === null || this.asked.has(id)) return;
    this.asked.add(id);
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = this.readUntilSettled();
  }

  private async readUntilSettled(): Promise<void> {
    do {
      this.readAgain = false;
      try {
        const list = await this.read();
        this.known(list.map((w) => w.id));
        this.found(list);
      } catch {
        // the stream reports a sandbox that went away; the next connect reloads the names
      }
    } while (this.readAgain);
    this.reading = null;
  }
}
