import { JOBS, type Job } from '../../core/collections.ts';
import { emitDomainEvent } from '../../core/events.ts';
import type { BackgroundService, SandboxContext } from '../../context.ts';
import type { Op } from '../../storage/index.ts';
import { GALLERY_DELETE_JOB, galleryDeleteJobId, type GalleryDeleteJob } from './requests.ts';
import { GALLERY_FILES } from './collections.ts';

/**
 * The gallery removal job (API description, "States and transitions: Gallery
 * file" and "Events"): DELETE /v1/gallery/files/:id only marks the file
 * `deleting` and writes a job row; this service removes the file when the job
 * falls due on the sandbox clock, and only then emits `gallery.file.deleted`.
 * Jobs live in the `jobs` collection, so a restart (or a reset, or a snapshot
 * restore) reschedules them; a file left `deleting` without a job gets a new one.
 */
export const galleryDeletionService: BackgroundService = {
  name: 'gallery-deletion',
  async start(ctx) {
    const jobs = new GalleryDeletionJobs(ctx);
    const unsubscribe = ctx.store.onChange((change) => {
      if (change.kind === 'ops') jobs.onOps(change.ops);
    });
    await jobs.rescheduleAll();
    return {
      stop: () => {
        unsubscribe();
        jobs.cancelAll();
      },
      afterReset: () => jobs.rescheduleAll(),
    };
  },
};

const isDeleteJob = (row: Readonly<Record<string, unknown>>): row is Job & GalleryDeleteJob => row.kind === GALLERY_DELETE_JOB;

class GalleryDeletionJobs {
  private timers = new Map<string, () => void>();

  constructor(private readonly ctx: SandboxContext) {}

  onOps(ops: readonly Op[]): void {
    for (const op of ops) {
      if (op.collection !== JOBS.name) continue;
      if (op.type === 'put' && isDeleteJob(op.row)) this.schedule(op.workspaceId, op.row);
      if (op.type === 'delete') this.cancel(op.workspaceId, op.id);
    }
  }

  /** From the stored state: every job, plus a new job for any `deleting` file that lost its own. */
  async rescheduleAll(): Promise<void> {
    this.cancelAll();
    const { store, clock } = this.ctx;
    const orphans: Op[] = [];
    for (const workspaceId of new Set([...JOBS.in(store).partitions(), ...GALLERY_FILES.in(store).partitions()])) {
      for (const row of JOBS.in(store).list(workspaceId)) if (isDeleteJob(row)) this.schedule(workspaceId, row);
      // listWhere: a created workspace's files are not all copied to find the few deleting
      for (const file of GALLERY_FILES.in(store).listWhere(workspaceId, 'status', 'deleting')) {
        if (JOBS.in(store).get(workspaceId, galleryDeleteJobId(file.id))) continue;
        const job: GalleryDeleteJob = {
          id: galleryDeleteJobId(file.id),
          kind: GALLERY_DELETE_JOB,
          fileId: file.id,
          runAt: new Date(clock.nowIn(workspaceId) + this.ctx.options.galleryDeletionDelayMs).toISOString(),
          createdAt: clock.isoIn(workspaceId),
        };
        orphans.push(JOBS.putOp(workspaceId, job));
      }
    }
    if (orphans.length > 0) await store.commit(orphans); // scheduled by onOps
  }

  cancelAll(): void {
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  private schedule(workspaceId: string, job: GalleryDeleteJob): void {
    const key = `${workspaceId}|${job.id}`;
    if (this.timers.has(key)) return;
    this.timers.set(
      key,
      this.ctx.clock.schedule(Date.parse(job.runAt), () => this.run(workspaceId, job.id), workspaceId, {
        label: `gallery deletion job ${job.id} (file ${job.fileId})`,
      }),
    );
  }

  private cancel(workspaceId: string, jobId: string): void {
    const key = `${workspaceId}|${jobId}`;
    this.timers.get(key)?.();
    this.timers.delete(key);
  }

  /** Re-reads the state when due: a job or file that went away meanwhile (reset) is a no-op. */
  private async run(workspaceId: string, jobId: string): Promise<void> {
    this.timers.delete(`${workspaceId}|${jobId}`);
    const { store, clock, bus } = this.ctx;
    const job = JOBS.in(store).get(workspaceId, jobId);
    if (!job || !isDeleteJob(job)) return;
    const file = GALLERY_FILES.in(store).get(workspaceId, job.fileId);
    const ops: Op[] = [JOBS.deleteOp(workspaceId, jobId)];
    const removing = file?.status === 'deleting';
    if (removing) ops.push(GALLERY_FILES.deleteOp(workspaceId, file.id));
    await store.commit(ops);
    if (removing) emitDomainEvent(bus, clock, workspaceId, 'gallery.file.deleted', { ...file, deletedAt: clock.iso() });
  }
}
