import { randomUUID } from 'node:crypto';
import type { Principal } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import { JOBS } from '../../core/collections.ts';
import { conflict } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { FieldIndex, textKey, type Store } from '../../storage/index.ts';
import { GALLERY_DELETE_JOB, galleryDeleteJobId, type CreateFolderBody, type DeletionScheduled, type GalleryDeleteJob } from './requests.ts';
import { joinFolderPath, type GalleryFile, type GalleryFolder } from './schemas.ts';
import { GALLERY_FILES, GALLERY_FOLDERS } from './collections.ts';
import { unknownRecord } from '../../core/reasons.ts';

/** Folder names are unique within a parent: the index key of a folder. */
const folderKey = (parentId: string | null, name: string) => `${parentId ?? ''}\u0000${name}`;

export class GalleryService {
  private readonly folderNames: FieldIndex<GalleryFolder>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly deletionDelayMs: number,
  ) {
    this.folderNames = FieldIndex.on(store, GALLERY_FOLDERS, 'parent+name', (f) => (textKey(f.name) === null ? null : folderKey(f.parentId, f.name)));
  }

  /** Names are unique within a parent (exact match after trimming): 409; an unknown parent: 404. */
  async createFolder(principal: Principal, body: CreateFolderBody): Promise<GalleryFolder> {
    const workspaceId = principal.workspace.id;
    const parentId = body.parentFolderId?.toLowerCase() ?? null;
    const parent = parentId === null ? null : GALLERY_FOLDERS.in(this.store).get(workspaceId, parentId);
    if (parentId !== null && !parent) throw unknownRecord('Parent folder', parentId, GALLERY_FOLDERS, 'parentFolderId', workspaceId);
    if (this.folderNames.has(workspaceId, folderKey(parentId, body.name))) {
      throw conflict('DUPLICATE_FOLDER_NAME', `A folder named "${body.name}" already exists ${parent ? `in ${parent.path}` : 'at the root'}`);
    }
    const now = this.clock.iso();
    const folder: GalleryFolder = {
      id: randomUUID(),
      workspaceId,
      name: body.name,
      parentId,
      path: joinFolderPath(parent?.path ?? null, body.name),
      description: body.description ?? null,
      createdAt: now,
      updatedAt: now,
    };
    await this.store.commit([GALLERY_FOLDERS.putOp(workspaceId, folder)]);
    return folder;
  }

  /**
   * Marks the file `deleting` and queues its removal in the `jobs` collection
   * (the deletion job service picks it up). A file already `deleting` answers
   * 202 again and keeps its original schedule.
   */
  async deleteFile(principal: Principal, rawId: string): Promise<DeletionScheduled> {
    const workspaceId = principal.workspace.id;
    const id = parseId(GALLERY_FILES, 'id', rawId);
    const file = GALLERY_FILES.in(this.store).get(workspaceId, id);
    if (!file) throw unknownRecord('Gallery file', id, GALLERY_FILES, 'id', workspaceId);
    if (file.status === 'deleting') {
      return { message: 'File deletion is already scheduled', status: 'scheduled', fileId: id };
    }
    const now = this.clock.now();
    const job: GalleryDeleteJob = {
      id: galleryDeleteJobId(id),
      kind: GALLERY_DELETE_JOB,
      fileId: id,
      runAt: new Date(now + this.deletionDelayMs).toISOString(),
      createdAt: new Date(now).toISOString(),
    };
    const deleting: GalleryFile = { ...file, status: 'deleting', updatedAt: job.createdAt };
    await this.store.commit([GALLERY_FILES.putOp(workspaceId, deleting), JOBS.putOp(workspaceId, job)]);
    return { message: 'File deletion scheduled', status: 'scheduled', fileId: id };
  }
}
