import { Readable } from 'node:stream';
import { blank } from './media.rules';
import type { MediaRecord } from './media.types';
import { MediaUseCases, type MediaDeps } from './media.use-cases';
import type { FileStore, MediaRecords, MediaUsage } from './ports';
import { UrlSigner } from './signing';

function fakes(usage: MediaUsage) {
  const doc: MediaRecord = {
    ...blank('m1', 'ws-1', 'a.jpg', 'POST_MEDIA'),
    source: 'UPLOAD',
    uploadState: 'CONFIRMED',
    unconfirmed: false,
    status: 'SUCCESS',
    fileId: 'f1',
    previewId: 'p1',
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  const docs = new Map([[doc._id, doc]]);
  const files = new Set(['f1', 'p1']);
  const repo = {
    find: async (ws: string, id: string) => (docs.get(id)?.workspaceId === ws ? docs.get(id)! : null),
    delete: async (ws: string, id: string) => docs.get(id)?.workspaceId === ws && docs.delete(id),
  } as unknown as MediaRecords;
  const store = {
    delete: async (id: string) => void files.delete(id),
    read: () => Readable.from([]),
  } as unknown as FileStore;
  const signer = new UrlSigner('x'.repeat(16), 'http://gw');
  const deps = { repo, store, usage, signer, urls: { signer, ttlSeconds: 60 } } as unknown as MediaDeps;
  return { media: new MediaUseCases(deps), docs, files };
}

describe('MediaUseCases.delete', () => {
  it('refuses with 409 MEDIA_IN_USE while a scheduled post uses the media, and keeps everything', async () => {
    const { media, docs, files } = fakes({ count: async () => ({ total: 3, scheduled: 1 }) });

    await expect(media.delete('ws-1', 'm1')).rejects.toMatchObject({ status: 409, code: 'MEDIA_IN_USE' });
    expect(docs.has('m1')).toBe(true);
    expect(files.size).toBe(2);
  });

  it('deletes metadata, file and preview when only unscheduled posts use it', async () => {
    const { media, docs, files } = fakes({ count: async () => ({ total: 2, scheduled: 0 }) });

    await media.delete('ws-1', 'm1');

    expect(docs.has('m1')).toBe(false);
    expect(files.size).toBe(0);
  });

  it('fails safe with 503 when the posts service cannot be asked', async () => {
    const { media, docs } = fakes({ count: async () => Promise.reject(new Error('UNAVAILABLE')) });

    await expect(media.delete('ws-1', 'm1')).rejects.toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(docs.has('m1')).toBe(true);
  });

  it('answers 404 for a media of another workspace without asking posts', async () => {
    const count = jest.fn();
    const { media, docs } = fakes({ count });

    await expect(media.delete('ws-2', 'm1')).rejects.toMatchObject({ status: 404 });
    expect(count).not.toHaveBeenCalled();
    expect(docs.has('m1')).toBe(true);
  });
});
