import { TestSystem } from '@social/testkit';
import { apiClient, outcome } from './support/api';

// Posts through the gateway with admin-issued keys, the whole system as processes. The posts here
// name no profiles or media, so they do not depend on the media and competitors gRPC servers
// (their own suites cover those; posts' component tests cover the calls with test doubles).
let system: TestSystem;

beforeAll(async () => {
  system = await TestSystem.start({ PLANS: JSON.stringify({ free: { competitors: 5 } }) });
});
afterAll(async () => {
  await system?.destroy();
});

interface Creds {
  workspaceId: string;
  apiId: string;
  apiKey: string;
}
const workspace = (): Promise<Creds> => system.admin(['workspace', 'create', '--name', 'posts-e2e', '--plan', 'free', '--json']);
const api = (c: Creds) => apiClient(system, c);
const requestIdOf = (r: { response: Response }) => r.response.headers.get('x-request-id');

describe('posts through the gateway', () => {
  it('creates a post with a label, gets it, lists it, updates it and moves it through review', async () => {
    const c = await workspace();
    const label = await api(c).POST('/labels', { body: { name: 'Spring' } });
    expect(label.response.status).toBe(201);

    const created = await api(c).POST('/posts', {
      body: {
        type: 'STATUS',
        captions: [{ plainText: 'Spring is here', net: null }],
        labelIds: [label.data!.id],
        briefing: { markdown: 'friendly' },
      },
    });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ type: 'STATUS', stage: 'IDEA', publishAt: null, budget: 0, profiles: [], labels: [label.data] });
    const post = { postId: created.data!.id };

    const got = await api(c).GET('/posts/{postId}', { params: { path: post } });
    expect(got.data).toEqual(created.data);

    const page = await api(c).GET('/posts', { params: { query: { search: 'SPRING' } } });
    expect(page.data).toMatchObject({ total: 1, skip: 0, take: 20, items: [{ id: post.postId }] });

    const updated = await api(c).PUT('/posts/{postId}', {
      params: { path: post },
      body: { publishAt: '2031-03-21T09:00:00.000Z' },
    });
    expect(updated.data).toMatchObject({ stage: 'DRAFT', publishAt: '2031-03-21T09:00:00.000Z', labels: [label.data] });

    const stage = (op: 'submitTeamReview' | 'approveTeam' | 'approveClient', body?: { comment: string }) =>
      api(c).PATCH('/posts/{postId}/stage/{op}', { params: { path: { ...post, op } }, ...(body ? { body } : {}) });
    expect((await stage('submitTeamReview', { comment: 'ready?' })).data!.stage).toBe('TEAM_REVIEW');
    const approved = await stage('approveTeam');
    expect(approved.data!.stage).toBe('TEAM_APPROVED');
    expect(approved.data!.stageHistory.map((h) => h.operation)).toEqual(['create', 'update', 'submitTeamReview', 'approveTeam']);

    const bad = await stage('approveClient');
    expect(bad.response.status).toBe(409);
    expect(bad.error!.error).toMatchObject({ code: 'INVALID_TRANSITION', requestId: requestIdOf(bad) });
  });

  it('reports validation problems with paths and request id, and validate explains why a post cannot be published', async () => {
    const c = await workspace();
    // An unknown network is what this checks: the document's types do not allow it, hence the cast.
    const res = await api(c).POST('/posts', { body: { type: 'LINK', captions: [{ plainText: 'x', net: 'nowhere' }] } as never });
    expect(res.response.status).toBe(400);
    expect(res.error!.error.code).toBe('VALIDATION_FAILED');
    expect(res.error!.error.requestId).toBe(requestIdOf(res));
    expect(res.error!.error.details.map((d) => d.path)).toEqual(['/captions/0/net']);

    const idea = await api(c).POST('/posts', { body: { type: 'STATUS', captions: [{ plainText: 'x' }] } });
    const validate = await api(c).GET('/posts/{postId}/validate', { params: { path: { postId: idea.data!.id } } });
    expect(validate.response.status).toBe(400);
    expect(validate.error!.error.details).toEqual([{ path: '/profileIds', message: expect.stringContaining('at least one profile') }]);
  });

  it('keeps workspaces apart: another workspace gets 404 and an empty list', async () => {
    const a = await workspace();
    const b = await workspace();
    const post = await api(a).POST('/posts', { body: { type: 'STATUS', captions: [{ plainText: 'private' }] } });
    const path = { postId: post.data!.id };
    expect((await api(b).GET('/posts/{postId}', { params: { path } })).response.status).toBe(404);
    expect((await api(b).PUT('/posts/{postId}', { params: { path }, body: { captions: [] } })).response.status).toBe(404);
    expect((await api(b).DELETE('/posts/{postId}', { params: { path } })).response.status).toBe(404);
    expect((await api(b).GET('/posts')).data).toEqual({ items: [], total: 0, skip: 0, take: 20 });
    expect((await api(a).GET('/posts/{postId}', { params: { path } })).response.status).toBe(200);
  });

  it('pages the list and deletes a post', async () => {
    const c = await workspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await api(c).POST('/posts', {
        body: { type: 'STATUS', captions: [{ plainText: `n${i}` }], publishAt: `2031-01-0${i + 1}T00:00:00.000Z` },
      });
      ids.push(created.data!.id);
    }
    const first = await api(c).GET('/posts', { params: { query: { take: 3 } } });
    const second = await api(c).GET('/posts', { params: { query: { skip: 3, take: 3 } } });
    expect([...first.data!.items, ...second.data!.items].map((p) => p.id)).toEqual([...ids].reverse());
    expect(outcome(await api(c).DELETE('/posts/{postId}', { params: { path: { postId: ids[0]! } } })).body).toEqual({ success: true });
    expect((await api(c).GET('/posts')).data!.total).toBe(4);
  });
});
