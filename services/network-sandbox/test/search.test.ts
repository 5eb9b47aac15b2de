import { type Sandbox, startSandbox, rejectionOf } from './sandbox-harness';

describe('profile search (spec 4.1)', () => {
  let sbx: Sandbox;
  let gnToken: string;
  let pnToken: string;

  beforeAll(async () => {
    sbx = await startSandbox();
    gnToken = await sbx.token('generalNet', 'gn-own-1');
    pnToken = await sbx.token('photoNet', 'pn-own-1');
  });
  afterAll(() => sbx.stop());

  const search = (net: 'generalNet' | 'photoNet' | 'photoNetV2', accountId: string, accessToken: string, query: string) =>
    sbx.adapter.searchProfiles({ net, accountId, accessToken, query });

  it('finds generalNet pages by case-insensitive name substring, leaving out personal accounts', async () => {
    const r = await search('generalNet', 'gn-own-1', gnToken, 'COFFEE');
    expect(r.items.map((p) => p.name)).toEqual(['Coffee With Leo', 'Northwind Coffee Roasters']);
    expect(r.items.map((p) => p.kind)).toEqual(['creator', 'business']);
    expect(r.personalAccountMatch).toBe(false);
    // "Ana Coffee" is a personal account with the word in its name.
    expect(r.items.some((p) => p.name === 'Ana Coffee')).toBe(false);
    const lane = await search('generalNet', 'gn-own-1', gnToken, 'lane bak');
    expect(lane.items).toEqual([
      expect.objectContaining({ id: 'gn-biz-2', name: 'Harbor Lane Bakery', username: 'harborlanebakery', followers: expect.any(Number) }),
    ]);
    expect(lane.items[0]!.picture).toBe(`${sbx.url}/sandbox/pictures/gn-biz-2.svg`);
  });

  it('finds photoNet accounts only by their exact username, not by part of it or by name', async () => {
    const exact = await search('photoNet', 'pn-own-1', pnToken, 'northwind.coffee.roasters');
    expect(exact.items.map((p) => p.id)).toEqual(['pn-biz-1']);
    expect(await search('photoNet', 'pn-own-1', pnToken, '@Northwind.Coffee.Roasters')).toMatchObject({ items: [{ id: 'pn-biz-1' }] });
    expect((await search('photoNet', 'pn-own-1', pnToken, 'northwind')).items).toEqual([]);
    expect((await search('photoNet', 'pn-own-1', pnToken, 'Northwind Coffee Roasters')).items).toEqual([]);
    expect(await search('photoNet', 'pn-own-1', pnToken, 'coffee.with.leo')).toMatchObject({ items: [{ kind: 'creator' }] });
  });

  it('says when an exact photoNet username is a personal account, without returning it', async () => {
    expect(await search('photoNet', 'pn-own-1', pnToken, 'ana.coffee')).toEqual({ items: [], personalAccountMatch: true });
    expect(await search('photoNet', 'pn-own-1', pnToken, 'nobody.here')).toEqual({ items: [], personalAccountMatch: false });
  });

  it('needs the token of the connected account doing the search', async () => {
    expect(await rejectionOf(search('photoNet', 'pn-own-1', gnToken, 'ana.coffee'))).toMatchObject({ kind: 'AUTH_REVOKED' });
    expect(await rejectionOf(search('photoNet', 'pn-own-2', pnToken, 'ana.coffee'))).toMatchObject({ kind: 'AUTH_REVOKED' });
  });

  it('refuses search on networks without competitor search', async () => {
    const r = await sbx.http('GET', '/sandbox/videoNet/accounts/vd-own-1/search?query=x', undefined, {
      authorization: `Bearer ${await sbx.token('videoNet', 'vd-own-1')}`,
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('NOT_SUPPORTED');
  });

  it('shows public profiles to anyone and personal ones to no one else', async () => {
    await expect(sbx.adapter.profileInfo({ net: 'photoNet', profileId: 'pn-cre-2' })).resolves.toMatchObject({
      id: 'pn-cre-2',
      username: 'maya.chen.travels',
      kind: 'creator',
    });
    expect(await rejectionOf(sbx.adapter.profileInfo({ net: 'photoNet', profileId: 'pn-per-1', accessToken: pnToken }))).toMatchObject({
      kind: 'NOT_FOUND',
    });
  });
});
