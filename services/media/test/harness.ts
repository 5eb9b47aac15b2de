import { createTestVhost, dropDatabases, freePort, internalHeaders, testEnv } from '@social/testkit';
import { loadMediaConfig } from '../src/config';
import { MediaService, type MediaServiceOverrides } from '../src/media-service';
import { MediaWorker } from '../src/media-worker';
import { testStore, type TestStore } from './store-env';

export interface Harness {
  service: MediaService;
  worker: MediaWorker;
  env: Record<string, string>;
  /** The data directory or bucket of this run (MEDIA_STORE picks the backend). */
  store: TestStore;
  /** http://127.0.0.1:port (the service's own root, also the storage host in tests) */
  root: string;
  api(ws: string, method: string, path: string, body?: unknown): Promise<Response>;
  /** Polls GET /media/{id} until it is no longer PROCESSING. */
  settled(ws: string, id: string, timeoutMs?: number): Promise<any>;
  stop(): Promise<void>;
}

/** The media service and its worker, in this process, on free ports, against the real infrastructure. */
export async function startMedia(envOverrides: Record<string, string> = {}, overrides: MediaServiceOverrides = {}): Promise<Harness> {
  // Signed addresses point at the service itself (it is the storage host here; no gateway), so its
  // port must be known before it starts.
  const port = await freePort();
  const root = `http://127.0.0.1:${port}`;
  // A vhost of its own: the job queue has a fixed name, and a worker of another test file (or of a
  // running system) would take this one's jobs and drop them (their media is not in its database).
  const vhost = envOverrides['AMQP_URL'] ? undefined : await createTestVhost(testEnv()['AMQP_URL']!);
  const store = await testStore((envOverrides['MEDIA_STORE'] as 'fs' | 's3' | undefined) ?? undefined);
  const env = testEnv({
    MEDIA_PORT: String(port),
    PUBLIC_BASE_URL: root,
    MEDIA_GRPC_PORT: '0',
    MEDIA_WORKER_PORT: '0',
    ...(vhost ? { AMQP_URL: vhost.amqpUrl } : {}),
    ...store.env,
    ...envOverrides,
  });
  const cfg = loadMediaConfig(env);
  const live = await MediaService.create(cfg, overrides);
  const worker = await MediaWorker.create(cfg, overrides);
  const api = (ws: string, method: string, path: string, body?: unknown) =>
    fetch(`${root}/v2${path}`, {
      method,
      headers: internalHeaders('media', ws),
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return {
    service: live,
    worker,
    env,
    store,
    root,
    api,
    async settled(ws, id, timeoutMs = 30000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const media = await (await api(ws, 'GET', `/media/${id}`)).json();
        if (media.status !== 'PROCESSING') return media;
        if (Date.now() > deadline) throw new Error(`media ${id} still PROCESSING after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      await worker.destroy();
      await live.destroy();
      await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
      await vhost?.drop();
      await store.cleanup();
    },
  };
}
