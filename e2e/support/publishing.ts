import type { SocialClient } from '@social/client';
import { eventually, sleep, type TestSystem } from '@social/testkit';
import { apiClient } from './api';

// What the publishing end-to-end tests do through the gateway (the typed client) and read from the
// network sandbox.

export interface Creds {
  workspaceId: string;
  apiId: string;
  apiKey: string;
  profiles: { id: string; net: { code: string }; statusLevel: string }[];
}

export const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();

export function publishingClient(system: TestSystem) {
  /**
   * The typed client for a workspace, without the client's own retries: these tests race changes
   * against the due time on purpose and assert 409s, so every call is sent exactly once (as a user's
   * single request would be); a retried PUT or PATCH would change the race under test.
   */
  const client = (c: Creds): SocialClient => apiClient(system, c, { retries: 0 });
  /** The network sandbox's admin API: not our public API (no typed client), so raw HTTP. */
  const sandbox = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${system.env['NETWORK_SANDBOX_URL']}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status >= 400) throw new Error(`sandbox ${method} ${path}: ${res.status} ${text}`);
    return text ? (JSON.parse(text) as any) : undefined;
  };
  const workspace = (name = 'E2E publishing'): Promise<Creds> =>
    system.admin(['workspace', 'create', '--name', name, '--sandbox-profiles', '--json']);
  const profileOf = (c: Creds, net: string) => c.profiles.find((p) => p.net.code === net)!.id;

  /**
   * Posts the network created for each (post, profile) of these posts, counted where it happens:
   * the sandbox records the key our client sent with each publish, also on networks that ignore it.
   */
  const createdPerProfile = async (postIds: string[]): Promise<Map<string, number>> => {
    const { clientKeys } = await sandbox('GET', '/sandbox/admin/published');
    const ours = new Set(postIds);
    const out = new Map<string, number>();
    for (const k of clientKeys as { clientKey: string; created: number }[]) {
      if (ours.has(k.clientKey.split(':')[0]!)) out.set(k.clientKey, (out.get(k.clientKey) ?? 0) + k.created);
    }
    return out;
  };
  /** What the network holds of one post: the captions of its posts per profile key. */
  const onNetwork = async (postId: string): Promise<{ clientKey: string; caption: string; net: string; publishedAt: string }[]> =>
    (await sandbox('GET', `/sandbox/admin/published?clientKeyPrefix=${encodeURIComponent(`${postId}:`)}`)).items;

  const finalStage = async (c: Creds, id: string, timeoutMs = 60000) =>
    eventually(
      async () => {
        const { data } = await client(c).GET('/posts/{postId}', { params: { path: { postId: id } } });
        return data?.stage === 'PUBLISHED' || data?.stage === 'PUBLISHED_FAILED' ? data : null;
      },
      timeoutMs,
      500,
    );

  /**
   * N posts on the given profiles, scheduled through the gateway for one moment a little ahead;
   * resolves just after that moment with their ids.
   */
  async function scheduleBatch(c: Creds, N: number, profiles: string[], caption = 'batch'): Promise<{ ids: string[]; dueAt: string }> {
    const api = client(c);
    const started = Date.now();
    const ids: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < N) {
          const i = next++;
          const r = await api.POST('/posts', {
            body: { type: 'STATUS', profileIds: profiles, publishAt: inSeconds(3600), captions: [{ plainText: `${caption} ${i}` }] },
          });
          if (r.response.status !== 201) throw new Error(`POST /posts: ${r.response.status} ${JSON.stringify(r.error)}`);
          ids[i] = r.data!.id;
        }
      }),
    );
    // Scheduling is two validated requests per post where creating was one: leave 5 times the
    // creation time (and some) before the due time, as the machine's load varies (3.5 times was
    // once too little, in CI beside a media benchmark).
    const dueAt = inSeconds(15 + ((Date.now() - started) / 1000) * 5);
    next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < N) {
          const path = { postId: ids[next++]! };
          const put = await api.PUT('/posts/{postId}', { params: { path }, body: { publishAt: dueAt } });
          if (put.response.status !== 200)
            throw new Error(`PUT /posts/${path.postId}: ${put.response.status} ${JSON.stringify(put.error)}`);
          const scheduled = await api.PATCH('/posts/{postId}/stage/{op}', { params: { path: { ...path, op: 'schedule' } } });
          if (scheduled.response.status !== 200)
            throw new Error(`PATCH /posts/${path.postId}/stage/schedule: ${scheduled.response.status} ${JSON.stringify(scheduled.error)}`);
        }
      }),
    );
    if (Date.now() >= Date.parse(dueAt)) throw new Error('the batch was not scheduled before its due time');
    await sleep(Date.parse(dueAt) - Date.now() + 300);
    return { ids, dueAt };
  }

  /** Every post PUBLISHED, and the network created each (post, profile) exactly once. */
  async function expectEachPublishedOnce(c: Creds, ids: string[], profiles: string[], timeoutMs = 600000): Promise<void> {
    const api = client(c);
    const pending = new Set(ids);
    await eventually(
      async () => {
        for (const id of [...pending]) {
          const { data } = await api.GET('/posts/{postId}', { params: { path: { postId: id } } });
          if (data?.stage === 'PUBLISHED') pending.delete(id);
          else if (data?.stage === 'PUBLISHED_FAILED') throw new Error(`post ${id} failed: ${JSON.stringify(data.profiles)}`);
        }
        return pending.size === 0;
      },
      timeoutMs,
      2000,
    );
    const created = await createdPerProfile(ids);
    const expected = new Map(ids.flatMap((id) => profiles.map((p) => [`${id}:${p}`, 1] as const)));
    const wrong = [...expected.keys()].filter((k) => created.get(k) !== 1).map((k) => `${k}: ${created.get(k) ?? 0}`);
    expect(wrong).toEqual([]);
    expect(created.size).toBe(expected.size);
  }

  return { client, sandbox, workspace, profileOf, createdPerProfile, onNetwork, finalStage, scheduleBatch, expectEachPublishedOnce };
}
