import { ConfigError } from '@social/config';
import { testKeyEnv } from '@social/testkit';
import { loadPostsConfig } from './config';

const base = { MONGO_URL: 'mongodb://127.0.0.1:27017/', AMQP_URL: 'amqp://127.0.0.1', ...testKeyEnv() };

describe('posts configuration', () => {
  it('lists due posts 2 s ahead and first asks about a dispatched post after 10 minutes by default', () => {
    const cfg = loadPostsConfig(base);
    expect([cfg.dispatchLookAheadMs, cfg.watchdogTimeoutMs, cfg.watchdogMaxIntervalMs]).toEqual([2000, 600000, 1800000]);
  });

  it('refuses a watchdog interval cap below its first wait, naming both variables', () => {
    const load = () => loadPostsConfig({ ...base, POSTS_PUBLISH_WATCHDOG_MS: '60000', POSTS_WATCHDOG_MAX_INTERVAL_MS: '1000' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow('POSTS_WATCHDOG_MAX_INTERVAL_MS must not be shorter than POSTS_PUBLISH_WATCHDOG_MS (60000 ms)');
  });
});
