import { routeLabelFor, upstreamFor } from './routes';

describe('gateway routes', () => {
  it.each([
    ['/v2/labels/', 'posts'],
    ['/v2/labels', 'posts'],
    ['/v2/posts/abc/stage/schedule', 'posts'],
    ['/v2/media/from-url', 'media'],
    ['/v2/assistant/generate-image', 'media'],
    ['/v2/profile/p1/insights', 'insights'],
    ['/v2/profile/p1/insights/posts', 'insights'],
    ['/v2/competitor/c1/insights/metrics', 'insights'],
    ['/v2/competitor/c1', 'competitors'],
    ['/v2/competitor', 'competitors'],
    ['/v2/competitors', 'competitors'],
    ['/v2/profiles', 'competitors'],
    ['/v2/search/profiles', 'competitors'],
    ['/v2/webhooks', 'webhooks'],
    ['/v2/webhooks/we_1/deliveries/msg_1/replay', 'webhooks'],
  ])('routes %s to %s', (path, upstream) => {
    expect(upstreamFor(path)).toBe(upstream);
  });

  it.each(['/v2/webhooksx', '/v2/labelsx', '/v2/nothing', '/labels', '/v2/', '/v2/profile/p1'])('has no upstream for %s', (path) => {
    expect(upstreamFor(path)).toBeUndefined();
  });
});

describe('route labels for metrics', () => {
  it.each([
    ['/v2/posts/6650c0ffee/stage/schedule', '/v2/posts/*'],
    ['/v2/labels', '/v2/labels/*'],
    ['/v2/profile/p1/insights/posts', '/v2/profile/:profileId/insights/*'],
    ['/v2/competitor/c1/insights', '/v2/competitor/:competitorId/insights/*'],
    ['/v2/competitor/c1', '/v2/competitor/*'],
    ['/storage/abc/def.png', '/storage/*'],
  ])('labels %s as %s', (path, label) => {
    expect(routeLabelFor(path)).toBe(label);
  });

  it('gives no label to paths no service answers, so they count as unmatched', () => {
    expect(routeLabelFor('/v2/nope/123')).toBeUndefined();
  });
});
