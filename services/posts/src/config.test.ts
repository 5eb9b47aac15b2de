import { ConfigError } from '@social/config';
import { testKeyEnv } from '@social/testkit';
import { loadPostsConfig } from './config';

const base = { MONGO_URL: 'mongodb://127.0.0.1:27017/', AMQP_URL: 'amqp://127.0.0.1', ...testKeyEnv() };

describe('posts configuration', () => {
  it('claims tasks 2 s ahead with a 30 s lease by default', () => {
    const cfg = loadPostsConfig(base);
    expect([cfg.dispatchLookAheadMs, cfg.dispatchLeaseMs]).toEqual([2000, 30000]);
  });

  it('refuses a look-ahead that is not shorter than the lease, naming both variables', () => {
    const load = () => loadPostsConfig({ ...base, POSTS_DISPATCH_LOOKAHEAD_MS: '5000', POSTS_DISPATCH_LEASE_MS: '5000' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow('POSTS_DISPATCH_LOOKAHEAD_MS must be shorter than POSTS_DISPATCH_LEASE_MS (5000 ms)');
  });
});
