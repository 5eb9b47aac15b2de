import type { Db } from 'mongodb';
import type { FileStore } from '../storage/file-store';
import { GridFsFileStore } from '../storage/gridfs-file-store';

export interface MigrationReport {
  /** Files copied into the configured store (and removed from GridFS unless kept). */
  migrated: number;
  /** Files the configured store already had (an earlier run). */
  skipped: number;
  /** Files a media names that GridFS does not have (nothing to copy). */
  missing: number;
  /** Media deleted while their file was copied (the copy was removed again). */
  raced: number;
  /** GridFS files no media names (left in place; listed for the operator). */
  orphans: string[];
}

const FIELDS = ['fileId', 'previewId'] as const;

/**
 * Moves every file of GridFS that a media names into `target`: copied by streaming (never whole in
 * memory), the size checked, then the media's reference switched by a compare-and-set and only then
 * the GridFS copy removed. Safe to run while the service runs with GRIDFS_FALLBACK=true (a file is
 * readable from one store or the other at every moment) and safe to run again.
 */
export async function migrateGridFsFiles(
  db: Db,
  target: FileStore,
  opts: { keepGridFs?: boolean; dryRun?: boolean } = {},
): Promise<MigrationReport> {
  const gridfs = new GridFsFileStore(db);
  const media = db.collection<{ _id: string; fileId?: string | null; previewId?: string | null }>('media');
  const report: MigrationReport = { migrated: 0, skipped: 0, missing: 0, raced: 0, orphans: [] };
  const named = new Set<string>();
  for await (const doc of media.find({}, { projection: { fileId: 1, previewId: 1 } })) {
    for (const field of FIELDS) {
      const id = doc[field];
      if (!id) continue;
      named.add(id);
      if (await target.stat(id)) {
        report.skipped++;
        continue;
      }
      const legacy = await gridfs.stat(id);
      if (!legacy) {
        report.missing++;
        continue;
      }
      if (opts.dryRun) {
        report.migrated++;
        continue;
      }
      const copy = await target.write(gridfs.read(id), { contentType: legacy.contentType, mediaId: doc._id, size: legacy.size });
      if (copy.size !== legacy.size) {
        await target.delete(copy.id);
        throw new Error(`copy of GridFS file ${id} has ${copy.size} bytes, expected ${legacy.size}; nothing changed for it`);
      }
      const switched = await media.updateOne({ _id: doc._id, [field]: id }, { $set: { [field]: copy.id } });
      if (switched.matchedCount === 0) {
        await target.delete(copy.id);
        report.raced++;
        continue;
      }
      named.add(copy.id);
      if (!opts.keepGridFs) await gridfs.delete(id);
      report.migrated++;
    }
  }
  for await (const file of db.collection<{ _id: string }>('files.files').find({}, { projection: { _id: 1 } })) {
    if (!named.has(String(file._id))) report.orphans.push(String(file._id));
  }
  return report;
}
