import { decodePublicProfileId, encodePublicProfileId } from './public-profile-id';

describe('public profile ids', () => {
  it('round-trips the network and the account id', () => {
    const id = encodePublicProfileId({ net: 'photoNet', accountId: 'pn-biz-1' });
    expect(id).toBe('photoNet:pn-biz-1');
    expect(decodePublicProfileId(id)).toEqual({ net: 'photoNet', accountId: 'pn-biz-1' });
  });

  it.each(['', 'gn-biz-1', ':gn-biz-1', 'nopeNet:gn-biz-1', 'generalNet:', 'generalNet:a/b', 'generalNet:a b', 'constructor:x'])(
    'rejects %j',
    (id) => {
      expect(decodePublicProfileId(id)).toBeUndefined();
    },
  );
});
