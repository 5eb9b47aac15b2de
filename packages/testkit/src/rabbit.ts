import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ctl = (...args: string[]) => run('rabbitmqctl', ['-q', ...args], { timeout: 60000 });

export interface TestVhost {
  vhost: string;
  /** AMQP_URL pointing at the vhost. */
  amqpUrl: string;
  drop(): Promise<void>;
}

/**
 * A RabbitMQ virtual host of its own, so queues with fixed names (publisher.publish-jobs, ...) of
 * tests running side by side on one broker never share messages. Needs rabbitmqctl on the machine
 * running the broker (scripts/infra.sh); with testcontainers the broker is per run anyway. A test
 * that restarts the broker needs a node of its own instead: startPrivateRabbit.
 */
export async function createTestVhost(amqpUrl: string): Promise<TestVhost> {
  const vhost = `t${randomBytes(4).toString('hex')}`;
  const u = new URL(amqpUrl);
  await ctl('add_vhost', vhost);
  await ctl('set_permissions', '-p', vhost, decodeURIComponent(u.username || 'guest'), '.*', '.*', '.*');
  u.pathname = `/${vhost}`;
  return {
    vhost,
    amqpUrl: u.toString().replace(/\/$/, ''),
    async drop() {
      await ctl('delete_vhost', vhost).catch(() => undefined);
    },
  };
}
