import { rejectionOf, type Sandbox, startSandbox } from './sandbox-harness';

describe('accounts and tokens', () => {
  let sbx: Sandbox;
  beforeAll(async () => {
    sbx = await startSandbox();
  });
  afterAll(() => sbx.stop());

  it('lists the accounts a workspace can connect', async () => {
    const r = await sbx.http('GET', '/sandbox/generalNet/accounts?kind=own');
    expect(r.status).toBe(200);
    expect(r.body.items.map((a: { id: string }) => a.id)).toEqual(['gn-own-1', 'gn-own-2', 'gn-own-3']);
    expect(r.body.items[0]).toEqual({
      id: 'gn-own-1',
      name: 'Acme Studio',
      username: 'acmestudio',
      picture: `${sbx.url}/sandbox/pictures/gn-own-1.svg`,
      kind: 'own',
      followers: expect.any(Number),
    });
    const all = await sbx.http('GET', '/sandbox/photoNet/accounts');
    expect(new Set(all.body.items.map((a: { kind: string }) => a.kind))).toEqual(new Set(['own', 'business', 'creator', 'personal']));
    expect((await sbx.http('GET', '/sandbox/generalNet/accounts?kind=robot')).status).toBe(400);
    expect((await sbx.http('GET', '/sandbox/otherNet/accounts')).status).toBe(404);
  });

  it('serves the account pictures it links to', async () => {
    const res = await fetch(`${sbx.url}/sandbox/pictures/gn-own-1.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await res.text()).toContain('>AS</text>');
  });

  it('issues tokens only for own accounts', async () => {
    const ok = await sbx.http('POST', '/sandbox/professionalNet/accounts/pro-own-2/tokens');
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ accessToken: expect.stringMatching(/^sbx_/), profile: { id: 'pro-own-2', kind: 'own' } });
    expect((await sbx.http('POST', '/sandbox/professionalNet/accounts/pro-biz-1/tokens')).body.error.code).toBe('ACCOUNT_NOT_CONNECTABLE');
    expect((await sbx.http('POST', '/sandbox/professionalNet/accounts/pro-own-9/tokens')).status).toBe(404);
  });

  it('refuses a revoked token on the next call, and a new token works again', async () => {
    const token = await sbx.token('conversationNet', 'cv-own-1');
    const post = (accessToken: string, idempotencyKey: string) =>
      sbx.adapter.publish({
        net: 'conversationNet',
        accountId: 'cv-own-1',
        accessToken,
        idempotencyKey,
        post: { type: 'STATUS', caption: 'hi', firstComment: null, media: [], links: [], settings: null },
      });
    await expect(post(token, 'before-revoke')).resolves.toBeDefined();

    expect((await sbx.http('POST', '/sandbox/conversationNet/accounts/cv-own-1/tokens/revoke')).body).toEqual({ revoked: 1 });

    const err = await rejectionOf(post(token, 'after-revoke'));
    expect(err).toMatchObject({ kind: 'AUTH_REVOKED', retryable: false, upstreamStatus: 401, upstreamCode: 'TOKEN_REVOKED' });
    expect(
      await rejectionOf(
        sbx.adapter.dailyMetrics({
          net: 'conversationNet',
          accountId: 'cv-own-1',
          accessToken: token,
          since: '2026-03-01',
          until: '2026-03-01',
          metrics: ['cv-daily-followers'],
        }),
      ),
    ).toMatchObject({ kind: 'AUTH_REVOKED' });
    expect(
      await rejectionOf(
        sbx.adapter.recentPosts({ net: 'conversationNet', accountId: 'cv-own-1', accessToken: token, since: new Date(0).toISOString() }),
      ),
    ).toMatchObject({ kind: 'AUTH_REVOKED' });

    const fresh = await sbx.token('conversationNet', 'cv-own-1');
    await expect(post(fresh, 'after-reconnect')).resolves.toMatchObject({ replayed: false });
  });
});
