import { randomBytes } from 'node:crypto';
import { eventually } from '@social/testkit';
import { startHarness, type Harness } from './harness';

// One service and one sandbox for the whole file (the machine is small); every test uses workspaces
// of its own, so tests do not see each other's profiles or competitors.
let h: Harness;
const newWs = () => `ws-${randomBytes(4).toString('hex')}`;

beforeAll(async () => {
  h = await startHarness({ free: { competitors: 5 }, tiny: { competitors: 2 } });
});
afterAll(async () => {
  await h?.stop();
});

const connect = (ws: string, net: string, accountId: string) =>
  h.grpc.call('ConnectProfile', { net, network_account_id: accountId }, { workspaceId: ws });
const jobsFor = (id: string) => h.published.filter((m) => m.payload.target?.id === id);
const rejection = async (p: Promise<unknown>): Promise<any> =>
  p.then(
    () => Promise.reject(new Error('expected a failure')),
    (e) => e,
  );

describe('connected profiles', () => {
  it('connects an own account with statusLevel OK, returns it again on a second connect, and requests a 90-day backfill', async () => {
    const ws = newWs();
    const first = await connect(ws, 'generalNet', 'gn-own-1');
    const again = await connect(ws, 'generalNet', 'gn-own-1');

    expect(first).toMatchObject({
      name: 'Acme Studio',
      username: 'acmestudio',
      net: { code: 'generalNet', name: 'General Net' },
      status_level: 'OK',
      network_account_id: 'gn-own-1',
      publish_ready: true,
    });
    expect(again.id).toBe(first.id);
    const [job] = await eventually(async () => jobsFor(first.id).length > 0 && jobsFor(first.id));
    expect(job).toMatchObject({
      type: 'insights.collection.requested',
      workspaceId: ws,
      payload: { target: { kind: 'profile', id: first.id, net: 'generalNet', networkAccountId: 'gn-own-1' }, reason: 'backfill' },
    });
    const days = (Date.parse(job!.payload.until) - Date.parse(job!.payload.since)) / 86_400_000 + 1;
    expect(days).toBe(90);
    expect(jobsFor(first.id)).toHaveLength(1);
  });

  it('refuses unknown networks, accounts that are not own accounts, and unknown accounts', async () => {
    const ws = newWs();
    expect(await rejection(connect(ws, 'nopeNet', 'x-1'))).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(await rejection(connect(ws, 'generalNet', 'gn-biz-1'))).toMatchObject({ status: 400, code: 'ACCOUNT_NOT_CONNECTABLE' });
    expect(await rejection(connect(ws, 'generalNet', 'gn-own-99'))).toMatchObject({ status: 404, code: 'ACCOUNT_NOT_FOUND' });
    expect((await h.api('GET', '/profiles', { ws })).body.total).toBe(0);
  });

  it('marks a profile ERROR when the network refuses its token at connect, and requests no collection', async () => {
    const ws = newWs();
    const rule = await h.sandbox.http('POST', '/sandbox/admin/failures', {
      kind: 'revoked_token',
      net: 'photoNet',
      accountId: 'pn-own-3',
      operation: 'profileInfo',
    });
    try {
      const p = await connect(ws, 'photoNet', 'pn-own-3');
      expect(p).toMatchObject({ status_level: 'ERROR', publish_ready: false });
      expect(await rejection(h.grpc.call('GetPublishCredentials', { profile_id: p.id }, { workspaceId: ws }))).toMatchObject({
        status: 409,
        code: 'PROFILE_AUTH_ERROR',
      });
      await h.service.relay.pass();
      expect(jobsFor(p.id)).toEqual([]);
    } finally {
      await h.sandbox.http('DELETE', `/sandbox/admin/failures/${rule.body.id}`);
    }
  });

  it('reconnects a profile in ERROR with a fresh token: same profile, statusLevel OK again', async () => {
    const ws = newWs();
    const rule = await h.sandbox.http('POST', '/sandbox/admin/failures', {
      kind: 'revoked_token',
      net: 'photoNet',
      accountId: 'pn-own-2',
      operation: 'profileInfo',
    });
    let first: { id: string };
    try {
      first = await connect(ws, 'photoNet', 'pn-own-2');
      expect(first).toMatchObject({ status_level: 'ERROR' });
    } finally {
      await h.sandbox.http('DELETE', `/sandbox/admin/failures/${rule.body.id}`);
    }
    const again = await connect(ws, 'photoNet', 'pn-own-2');
    expect(again).toMatchObject({ id: first.id, status_level: 'OK', publish_ready: true });
    expect((await h.grpc.call('GetPublishCredentials', { profile_id: first.id }, { workspaceId: ws })).access_token).not.toBe('');
  });

  it('sets statusLevel ERROR when a profile.auth.revoked event arrives', async () => {
    const ws = newWs();
    const p = await connect(ws, 'videoNet', 'vd-own-1');
    h.emit('profile.auth.revoked', {
      id: '6f1c2f9e-8d7a-4b3c-9e2f-1a2b3c4d5e6f',
      type: 'profile.auth.revoked',
      occurredAt: new Date().toISOString(),
      correlationId: 'test',
      workspaceId: ws,
      payload: { profileId: p.id, net: 'videoNet', reason: 'token revoked by the owner' },
    });

    const listed = await eventually(async () => {
      const r = await h.api('GET', '/profiles', { ws });
      return r.body.items[0]?.statusLevel === 'ERROR' && r.body.items[0];
    });
    expect(listed).toMatchObject({ id: p.id, statusLevel: 'ERROR' });
    const [again] = (await h.grpc.call('GetProfiles', { ids: [p.id] }, { workspaceId: ws })).items;
    expect(again).toMatchObject({ status_level: 'ERROR', publish_ready: false });
  });

  it('connects one own sandbox account of each publishing network and lists them as Form B with filters', async () => {
    const ws = newWs();
    const { items } = await h.grpc.call('ConnectSandboxProfiles', {}, { workspaceId: ws, deadlineMs: 30000 });
    expect(items.map((p) => p.net.code)).toEqual([
      'generalNet',
      'photoNet',
      'photoNetV2',
      'professionalNet',
      'shortVideoNet',
      'conversationNet',
      'listingNet',
      'videoNet',
      'microblogNet',
    ]);

    const all = await h.api('GET', '/profiles', { ws });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ hasMore: false, total: 9 });
    expect(all.body.items.map((p: { id: string }) => p.id)).toEqual(items.map((p) => p.id));
    expect(all.body.items[1]).toEqual({
      id: items[1]!.id,
      name: 'Acme Studio',
      username: 'acme.studio',
      picture: expect.stringMatching(/^http/),
      net: { code: 'photoNet', name: 'Photo Net' },
      statusLevel: 'OK',
    });

    const page = await h.api('GET', '/profiles?skip=8&take=4', { ws });
    expect(page.body).toMatchObject({ hasMore: false, total: 9, items: [{ net: { code: 'microblogNet' } }] });
    expect((await h.api('GET', '/profiles?take=4', { ws })).body).toMatchObject({ hasMore: true, total: 9 });
    const nets = await h.api('GET', '/profiles?net=videoNet,photoNet', { ws });
    expect(nets.body.items.map((p: any) => p.net.code)).toEqual(['photoNet', 'videoNet']);
    // The text is matched literally and case-insensitively: "ACME.STUDIO" is only the photo networks' username.
    const text = await h.api('GET', '/profiles?query=ACME.STUDIO', { ws });
    expect(text.body.items.map((p: any) => p.net.code)).toEqual(['photoNet', 'photoNetV2']);
    expect((await h.api('GET', '/profiles', { ws: newWs() })).body).toEqual({ hasMore: false, items: [], total: 0 });
  });

  it.each([['take=0'], ['take=101'], ['skip=-1'], ['take=abc'], ['net=nopeNet'], ['net=generalNet,nopeNet'], ['query=a&query=b']])(
    'answers GET /profiles?%s with 400 in the error shape',
    async (qs) => {
      const r = await h.api('GET', `/profiles?${qs}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({
        code: 'VALIDATION_FAILED',
        details: [expect.objectContaining({ path: expect.stringMatching(/^\/query\//) })],
      });
    },
  );

  it('keeps profiles of other workspaces out of gRPC reads', async () => {
    const ws = newWs();
    const p = await connect(ws, 'generalNet', 'gn-own-2');
    const other = newWs();
    expect((await h.grpc.call('GetProfiles', { ids: [p.id] }, { workspaceId: other })).items).toEqual([]);
    expect(await rejection(h.grpc.call('GetPublishCredentials', { profile_id: p.id }, { workspaceId: other }))).toMatchObject({
      status: 404,
    });
    const creds = await h.grpc.call('GetPublishCredentials', { profile_id: p.id }, { workspaceId: ws });
    expect(creds).toMatchObject({
      profile_id: p.id,
      net: 'generalNet',
      network_account_id: 'gn-own-2',
      access_token: expect.stringMatching(/^sbx_/),
    });
  });
});

describe('GET /search/profiles', () => {
  let ws: string;
  beforeAll(async () => {
    ws = newWs();
    await connect(ws, 'generalNet', 'gn-own-1');
    await connect(ws, 'photoNet', 'pn-own-1');
  });
  const search = (qs: string, workspace = ws) => h.api('GET', `/search/profiles?${qs}`, { ws: workspace });

  it('finds generalNet pages by name, with ids to pass as profileId', async () => {
    const r = await search('net=generalNet&query=coffee');
    expect(r.status).toBe(200);
    expect(r.body.items).toEqual([
      { id: 'generalNet:gn-cre-1', name: 'Coffee With Leo', username: 'coffeewithleo', picture: expect.any(String) },
      { id: 'generalNet:gn-biz-1', name: 'Northwind Coffee Roasters', username: 'northwindcoffeeroasters', picture: expect.any(String) },
    ]);
  });

  it('finds photoNet accounts by exact username only', async () => {
    expect((await search('net=photoNet&query=northwind.coffee.roasters')).body).toEqual({
      items: [
        { id: 'photoNet:pn-biz-1', name: 'Northwind Coffee Roasters', username: 'northwind.coffee.roasters', picture: expect.any(String) },
      ],
    });
    const partial = await search('net=photoNet&query=northwind');
    expect(partial.status).toBe(400);
    expect(partial.body.error.code).toBe('SEARCH_NO_PROFILE');
  });

  it('answers a personal account with 400 for insights and with an empty result and a warning for posts', async () => {
    const insights = await search('net=photoNet&query=ana.coffee');
    expect(insights.status).toBe(400);
    expect(insights.body.error).toMatchObject({ code: 'SEARCH_PERSONAL_PROFILE', message: expect.stringContaining('personal') });
    const posts = await search('net=photoNet&query=ana.coffee&area=posts');
    expect(posts.status).toBe(200);
    expect(posts.body).toEqual({ items: [], warning: expect.stringContaining('personal') });
    expect((await search('net=photoNet&query=nobody.here&area=posts')).body).toEqual({ items: [], warning: expect.any(String) });
  });

  it('needs a connected profile of the workspace on that network', async () => {
    const r = await search('net=photoNetV2&query=northwind.coffee.roasters');
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({ code: 'NO_CONNECTED_PROFILE', message: expect.stringContaining('connected') });
    expect((await search('net=generalNet&query=coffee', newWs())).body.error.code).toBe('NO_CONNECTED_PROFILE');
  });

  it('says clearly that networks without profile search cannot be searched', async () => {
    const r = await search('net=videoNet&query=x');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('SEARCH_NOT_SUPPORTED');
  });

  it.each([['net=generalNet'], ['query=x'], ['net=nopeNet&query=x'], ['net=generalNet&query=x&area=ads'], ['net=generalNet&query=%20%20']])(
    'answers ?%s with 400 VALIDATION_FAILED',
    async (qs) => {
      const r = await search(qs);
      expect([r.status, r.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    },
  );
});

describe('competitors', () => {
  const add = (ws: string, profileId: unknown, plan?: string) =>
    h.api('POST', '/competitor', { ws, body: { profileId }, ...(plan ? { plan } : {}) });
  const list = (ws: string, qs = '') => h.api('GET', `/competitors${qs}`, { ws });

  it('adds a competitor (201), returns the same record when added again, and requests its backfill', async () => {
    const ws = newWs();
    const first = await add(ws, 'photoNet:pn-biz-2');
    const again = await add(ws, 'photoNet:pn-biz-2');

    expect(first.status).toBe(201);
    expect(first.body).toEqual({ id: expect.any(String), profileId: 'photoNet:pn-biz-2' });
    expect(again).toEqual(first);
    const job = await eventually(async () => jobsFor(first.body.id)[0]);
    expect(job).toMatchObject({
      workspaceId: ws,
      payload: { target: { kind: 'competitor', id: first.body.id, net: 'photoNet', networkAccountId: 'pn-biz-2' }, reason: 'backfill' },
    });
    expect((await list(ws)).body).toEqual({
      hasMore: false,
      total: 1,
      items: [
        {
          id: first.body.id,
          profileId: 'photoNet:pn-biz-2',
          name: 'Harbor Lane Bakery',
          username: 'harbor.lane.bakery',
          picture: expect.any(String),
          net: { code: 'photoNet', name: 'Photo Net' },
          statusLevel: 'ACTIVE',
        },
      ],
    });
  });

  it('keeps one record when the same profile is added 20 times at once', async () => {
    const ws = newWs();
    const answers = await Promise.all(Array.from({ length: 20 }, () => add(ws, 'generalNet:gn-biz-3')));

    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect((await list(ws)).body.total).toBe(1);
  });

  it('answers 403 PLAN_LIMIT_REACHED beyond the plan limit, while an existing competitor is still returned', async () => {
    const ws = newWs();
    expect((await add(ws, 'generalNet:gn-biz-1', 'tiny')).status).toBe(201);
    const second = await add(ws, 'generalNet:gn-biz-2', 'tiny');
    const third = await add(ws, 'generalNet:gn-biz-3', 'tiny');

    expect(third.status).toBe(403);
    expect(third.body.error).toMatchObject({ code: 'PLAN_LIMIT_REACHED', message: expect.stringContaining('2 competitors') });
    expect(await add(ws, 'generalNet:gn-biz-2', 'tiny')).toEqual(second);
    expect((await list(ws)).body.total).toBe(2);
  });

  it('never exceeds the limit when 20 different profiles are added at once', async () => {
    const ws = newWs();
    const ids = [
      ...[1, 2, 3, 4, 5].flatMap((n) => [`generalNet:gn-biz-${n}`, `photoNet:pn-biz-${n}`]),
      ...[1, 2, 3].flatMap((n) => [`generalNet:gn-cre-${n}`, `photoNet:pn-cre-${n}`, `photoNetV2:pn2-biz-${n}`]),
      'photoNetV2:pn2-cre-1',
    ];
    expect(new Set(ids).size).toBe(20);
    const answers = await Promise.all(ids.map((id) => add(ws, id)));

    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(5).fill(201), ...Array(15).fill(403)]);
    expect((await list(ws)).body.total).toBe(5);
  });

  it('removes only the association: 200, gone from lists and gRPC, removal event, and the profile can be added again', async () => {
    const ws = newWs();
    const added = (await add(ws, 'photoNet:pn-cre-1', 'tiny')).body;
    await add(ws, 'photoNet:pn-cre-2', 'tiny');

    const del = await h.api('DELETE', `/competitor/${added.id}`, { ws });
    expect(del).toEqual({ status: 200, body: { success: true } });
    expect((await h.api('DELETE', `/competitor/${added.id}`, { ws })).status).toBe(404);
    expect((await list(ws)).body.items.map((c: any) => c.profileId)).toEqual(['photoNet:pn-cre-2']);
    expect(await rejection(h.grpc.call('GetCompetitor', { competitor_id: added.id }, { workspaceId: ws }))).toMatchObject({ status: 404 });
    await eventually(async () => h.published.some((m) => m.type === 'insights.target.removed' && m.payload.target.id === added.id));

    // The freed plan slot and profile are usable at once; the re-added competitor has a new id.
    const readded = await add(ws, 'photoNet:pn-cre-1', 'tiny');
    expect(readded.status).toBe(201);
    expect(readded.body.id).not.toBe(added.id);
    expect(await h.grpc.call('GetCompetitor', { competitor_id: readded.body.id }, { workspaceId: ws })).toMatchObject({
      id: readded.body.id,
      profile_id: 'photoNet:pn-cre-1',
      network_account_id: 'pn-cre-1',
      status_level: 'ACTIVE',
      net: { code: 'photoNet' },
    });
  });

  it('answers 404 for competitors of another workspace', async () => {
    const ws = newWs();
    const added = (await add(ws, 'generalNet:gn-cre-2')).body;
    const other = newWs();

    expect((await h.api('DELETE', `/competitor/${added.id}`, { ws: other })).status).toBe(404);
    expect(await rejection(h.grpc.call('GetCompetitor', { competitor_id: added.id }, { workspaceId: other }))).toMatchObject({
      status: 404,
    });
    expect((await list(other)).body.total).toBe(0);
    expect((await list(ws)).body.total).toBe(1);
  });

  it('filters and pages the list', async () => {
    const ws = newWs();
    for (const id of ['generalNet:gn-biz-4', 'photoNet:pn-biz-4', 'generalNet:gn-biz-5']) expect((await add(ws, id)).status).toBe(201);

    expect((await list(ws, '?net=generalNet')).body.items.map((c: any) => c.profileId)).toEqual([
      'generalNet:gn-biz-4',
      'generalNet:gn-biz-5',
    ]);
    expect((await list(ws, '?query=PIXEL')).body.items.map((c: any) => c.profileId)).toEqual(['generalNet:gn-biz-5']);
    expect((await list(ws, '?skip=1&take=1')).body).toMatchObject({ hasMore: true, total: 3, items: [{ profileId: 'photoNet:pn-biz-4' }] });
    expect((await list(ws, '?take=500')).status).toBe(400);
  });

  it.each([
    ['a body without profileId', {}, 400],
    ['a profileId that is not a string', { profileId: 42 }, 400],
    ['unknown fields', { profileId: 'generalNet:gn-biz-1', extra: true }, 400],
    ['a profileId of another form', { profileId: 'gn-biz-1' }, 400],
    ['a network without profile search', { profileId: 'videoNet:vd-biz-1' }, 400],
    ['an account that does not exist', { profileId: 'generalNet:gn-biz-99' }, 404],
    ['a personal account', { profileId: 'generalNet:gn-per-1' }, 404],
  ])('refuses %s and changes nothing', async (_what, body, status) => {
    const ws = newWs();
    const r = await h.api('POST', '/competitor', { ws, body });
    expect(r.status).toBe(status);
    expect(r.body.error).toEqual(
      expect.objectContaining({ code: expect.any(String), message: expect.any(String), requestId: expect.any(String) }),
    );
    expect((await list(ws)).body.total).toBe(0);
  });
});
