import type { mongoose } from '@social/mongo';

/**
 * Buckets are spread over a fixed number of collections by a hash of the target. FerretDB on
 * PostgreSQL filters without using indexes (every find is a scan of its collection that unpacks
 * each stored document), so a lookup costs in proportion to its collection's size: with S shards it
 * scans 1/S of the buckets. On MongoDB the `_id` and `target` indexes make shards merely harmless.
 * The count is part of the data layout: changing it needs a migration.
 */
export const DEFAULT_BUCKET_SHARDS = 64;

export function shardOf(target: string, shards: number): number {
  // FNV-1a: stable across processes and versions, unlike anything seeded.
  let h = 0x811c9dc5;
  for (let i = 0; i < target.length; i++) {
    h ^= target.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

export const shardSuffix = (shard: number) => String(shard).padStart(2, '0');

/**
 * One unordered bulk write per shard collection. `fresh`: the buckets do not exist yet (a bulk
 * load), so plain inserts do; an upsert first looks for the document, a scan on FerretDB.
 */
export async function bulkReplace<D extends { _id: string; target: string }>(
  docs: D[],
  modelOf: (target: string) => mongoose.Model<D>,
  fresh = false,
): Promise<void> {
  const byModel = new Map<mongoose.Model<D>, D[]>();
  for (const doc of docs) {
    const model = modelOf(doc.target);
    byModel.set(model, [...(byModel.get(model) ?? []), doc]);
  }
  await Promise.all(
    [...byModel].map(([model, list]) =>
      fresh
        ? model.collection.insertMany(list as never[], { ordered: false })
        : model.bulkWrite(
            // Generic documents do not satisfy the driver's WithoutId<D> mapping; the shape is ours.
            list.map((doc) => ({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } })) as unknown as Parameters<
              mongoose.Model<D>['bulkWrite']
            >[0],
            { ordered: false },
          ),
    ),
  );
}
