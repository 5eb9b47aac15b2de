import { dropDatabases, internalHeaders, testEnv } from '@social/testkit';
import { loadPostsConfig } from '../../src/config';
import { PostsService } from '../../src/posts-service';
import { FakeMedia, FakeProfiles } from './neighbours';

export interface Harness {
  service: PostsService;
  media: FakeMedia;
  profiles: FakeProfiles;
  env: Record<string, string>;
  call(ws: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

/** PostsService in-process on free ports against the real database, with neighbour test doubles. */
export async function startHarness(extraEnv: Record<string, string> = {}): Promise<Harness> {
  const media = new FakeMedia();
  const profiles = new FakeProfiles();
  const env = testEnv({
    POSTS_PORT: '0',
    POSTS_GRPC_PORT: '0',
    POSTS_NEIGHBOUR_DEADLINE_MS: '2000',
    ...extraEnv,
  });
  let service: PostsService;
  try {
    await media.start();
    await profiles.start();
    env['MEDIA_GRPC_URL'] = media.address;
    env['COMPETITORS_GRPC_URL'] = profiles.address;
    service = await PostsService.create(loadPostsConfig(env));
  } catch (err) {
    // Leave nothing listening, or jest would wait for it forever.
    await media.stop();
    await profiles.stop();
    throw err;
  }
  const base = `http://127.0.0.1:${service.port}/v2`;
  return {
    service,
    media,
    profiles,
    env,
    async call(ws, method, path, body) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: internalHeaders('posts', ws),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      await service.destroy();
      await media.stop();
      await profiles.stop();
      await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
    },
  };
}

export const paths = (body: any): string[] => (body?.error?.details ?? []).map((d: { path: string }) => d.path);
