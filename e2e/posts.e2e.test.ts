import { TestSystem } from '@social/testkit';

// Posts through the gateway with admin-issued keys, the whole system as processes. The posts here
// name no profiles or media, so they do not depend on the media and competitors gRPC servers
// (their own suites cover those; posts' component tests cover the calls with test doubles).
let system: TestSystem;
let gw: string;

beforeAll(async () => {
  system = await TestSystem.start({ PLANS: JSON.stringify({ free: { competitors: 5 } }) });
  gw = `${system.gatewayUrl}/v2`;
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
async function call(c: Creds, method: string, path: string, body?: unknown) {
  const res = await fetch(`${gw}${path}`, {
    method,
    headers: { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json(), requestId: res.headers.get('x-request-id') };
}

describe('posts through the gateway', () => {
  it('creates a post with a label, gets it, lists it, updates it and moves it through review', async () => {
    const c = await workspace();
    const label = await call(c, 'POST', '/labels', { name: 'Spring' });
    expect(label.status).toBe(201);

    const created = await call(c, 'POST', '/posts', {
      type: 'STATUS',
      captions: [{ plainText: 'Spring is here', net: null }],
      labelIds: [label.body.id],
      briefing: { markdown: 'friendly' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: 'STATUS', stage: 'IDEA', publishAt: null, budget: 0, profiles: [], labels: [label.body] });

    const got = await call(c, 'GET', `/posts/${created.body.id}`);
    expect(got.body).toEqual(created.body);

    const page = await call(c, 'GET', '/posts?search=SPRING');
    expect(page.body).toMatchObject({ total: 1, skip: 0, take: 20, items: [{ id: created.body.id }] });

    const updated = await call(c, 'PUT', `/posts/${created.body.id}`, { publishAt: '2031-03-21T09:00:00.000Z' });
    expect(updated.body).toMatchObject({ stage: 'DRAFT', publishAt: '2031-03-21T09:00:00.000Z', labels: [label.body] });

    expect((await call(c, 'PATCH', `/posts/${created.body.id}/stage/submitTeamReview`, { comment: 'ready?' })).body.stage).toBe(
      'TEAM_REVIEW',
    );
    const approved = await call(c, 'PATCH', `/posts/${created.body.id}/stage/approveTeam`);
    expect(approved.body.stage).toBe('TEAM_APPROVED');
    expect(approved.body.stageHistory.map((h: { operation: string }) => h.operation)).toEqual([
      'create',
      'update',
      'submitTeamReview',
      'approveTeam',
    ]);

    const bad = await call(c, 'PATCH', `/posts/${created.body.id}/stage/approveClient`);
    expect(bad.status).toBe(409);
    expect(bad.body.error).toMatchObject({ code: 'INVALID_TRANSITION', requestId: bad.requestId });
  });

  it('reports validation problems with paths and request id, and validate explains why a post cannot be published', async () => {
    const c = await workspace();
    const res = await call(c, 'POST', '/posts', { type: 'LINK', captions: [{ plainText: 'x', net: 'nowhere' }] });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_FAILED');
    expect(res.body.error.requestId).toBe(res.requestId);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['/captions/0/net']);

    const idea = await call(c, 'POST', '/posts', { type: 'STATUS', captions: [{ plainText: 'x' }] });
    const validate = await call(c, 'GET', `/posts/${idea.body.id}/validate`);
    expect(validate.status).toBe(400);
    expect(validate.body.error.details).toEqual([{ path: '/profileIds', message: expect.stringContaining('at least one profile') }]);
  });

  it('keeps workspaces apart: another workspace gets 404 and an empty list', async () => {
    const a = await workspace();
    const b = await workspace();
    const post = await call(a, 'POST', '/posts', { type: 'STATUS', captions: [{ plainText: 'private' }] });
    expect((await call(b, 'GET', `/posts/${post.body.id}`)).status).toBe(404);
    expect((await call(b, 'PUT', `/posts/${post.body.id}`, { captions: [] })).status).toBe(404);
    expect((await call(b, 'DELETE', `/posts/${post.body.id}`)).status).toBe(404);
    expect((await call(b, 'GET', '/posts')).body).toEqual({ items: [], total: 0, skip: 0, take: 20 });
    expect((await call(a, 'GET', `/posts/${post.body.id}`)).status).toBe(200);
  });

  it('pages the list and deletes a post', async () => {
    const c = await workspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await call(c, 'POST', '/posts', {
            type: 'STATUS',
            captions: [{ plainText: `n${i}` }],
            publishAt: `2031-01-0${i + 1}T00:00:00.000Z`,
          })
        ).body.id,
      );
    }
    const first = await call(c, 'GET', '/posts?take=3');
    const second = await call(c, 'GET', '/posts?skip=3&take=3');
    expect([...first.body.items, ...second.body.items].map((p: { id: string }) => p.id)).toEqual([...ids].reverse());
    expect((await call(c, 'DELETE', `/posts/${ids[0]}`)).body).toEqual({ success: true });
    expect((await call(c, 'GET', '/posts')).body.total).toBe(4);
  });
});
