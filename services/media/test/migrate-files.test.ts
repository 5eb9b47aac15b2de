import { Readable } from 'node:stream';
import { MongoClient, type Db } from 'mongodb';
import { Types } from 'mongoose';
import { loadMediaConfig } from '../src/config';
import { migrateGridFsFiles } from '../src/migration/migrate-files';
import { GridFsFileStore } from '../src/storage/gridfs-file-store';
import { primaryStore } from '../src/storage/store-from-config';
import { UrlSigner, filePath } from '../src/domain/signing';
import { jpeg } from './fixtures';
import { startMedia, type Harness } from './harness';

// An upgrade from GridFS: files stored before MEDIA_STORE stay readable (GRIDFS_FALLBACK=true) until
// `migrate-files` moved them, and none is lost on the way.
let h: Harness;
let client: MongoClient;
let db: Db;
let gridfs: GridFsFileStore;

beforeAll(async () => {
  h = await startMedia({ GRIDFS_FALLBACK: 'true' }, { usage: { count: async () => ({ total: 0, scheduled: 0 }) } });
  client = await MongoClient.connect(h.env['MONGO_URL']!, { retryWrites: false });
  db = client.db(`${h.env['MONGO_DB_PREFIX']}media`);
  gridfs = new GridFsFileStore(db);
});
afterAll(async () => {
  await client.close();
  await h.stop();
});

/** A SUCCESS media whose file is in GridFS, as the service stored it before the move. */
async function legacyMedia(ws: string, file: Buffer) {
  const stored = await gridfs.write(Readable.from([file]), { contentType: 'image/jpeg', mediaId: 'legacy' });
  const id = new Types.ObjectId().toHexString();
  const now = new Date();
  await db.collection('media').insertOne({
    _id: id as never,
    workspaceId: ws,
    name: 'old',
    destinationType: 'POST_MEDIA',
    source: 'UPLOAD',
    status: 'SUCCESS',
    uploadState: 'CONFIRMED',
    unconfirmed: false,
    mimeType: 'image/jpeg',
    kind: 'IMAGE',
    specs: { width: 10, height: 10, duration: null, fileSizeBytes: file.length, fps: null },
    declaredSpecs: null,
    fileUrl: null,
    fileId: stored.id,
    incomingId: null,
    uploadedContentType: 'image/jpeg',
    previewId: null,
    errorReason: null,
    createdAt: now,
    updatedAt: now,
  });
  const signer = new UrlSigner(h.env['STORAGE_SIGNING_SECRET']!, h.root);
  return { id, fileId: stored.id, url: signer.sign('GET', filePath(id, 'original'), new Date(Date.now() + 600_000)) };
}

const bytesAt = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
};

it('serves GridFS files through the fallback, moves them into the store, and serves them from there', async () => {
  const file = await jpeg(10, 10);
  const old = await legacyMedia('ws-mig', file);
  expect(await bytesAt(old.url)).toEqual({ status: 200, body: file });

  const target = primaryStore(loadMediaConfig(h.env));
  const report = await migrateGridFsFiles(db, target);
  expect(report).toMatchObject({ migrated: 1, missing: 0, raced: 0, orphans: [] });
  expect(await gridfs.stat(old.fileId)).toBeNull();
  const doc = await db.collection('media').findOne({ _id: old.id as never });
  expect(doc!['fileId']).not.toBe(old.fileId);
  expect(await target.stat(doc!['fileId'])).toMatchObject({ size: file.length });
  expect(await bytesAt(old.url)).toEqual({ status: 200, body: file });

  // Again: nothing left to move.
  expect(await migrateGridFsFiles(db, target)).toMatchObject({ migrated: 0, skipped: 1 });
  (target as { destroy?: () => void }).destroy?.();
});

it('a dry run moves nothing; deleting a media still in GridFS removes its file there', async () => {
  const file = await jpeg(12, 12);
  const old = await legacyMedia('ws-mig2', file);
  const target = primaryStore(loadMediaConfig(h.env));
  expect(await migrateGridFsFiles(db, target, { dryRun: true })).toMatchObject({ migrated: 1 });
  expect(await gridfs.stat(old.fileId)).not.toBeNull();
  expect((await h.api('ws-mig2', 'DELETE', `/media/${old.id}`)).status).toBe(200);
  expect(await gridfs.stat(old.fileId)).toBeNull();
  (target as { destroy?: () => void }).destroy?.();
});
