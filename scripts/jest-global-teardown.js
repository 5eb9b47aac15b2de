const { execFileSync } = require('node:child_process');

module.exports = async function globalTeardown() {
  for (const c of globalThis.__SOCIAL_CONTAINERS__ ?? []) await c.stop();
  const vhost = globalThis.__SOCIAL_RUN_VHOST__;
  if (vhost) {
    try {
      execFileSync('rabbitmqctl', ['-q', 'delete_vhost', vhost], { stdio: 'ignore', timeout: 60000 });
    } catch {
      // a vhost left behind holds no messages a running system could consume; nothing to do
    }
  }
};
