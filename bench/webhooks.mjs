// `pnpm bench webhooks` (or `node bench/webhooks.mjs` after `pnpm build`): 1,000 webhook
// deliveries to a local HTTPS receiver that answers after 200 ms, from the domain events on
// RabbitMQ to the receiver's 200, through the real webhooks service (in this process) against the
// real FerretDB/MongoDB and RabbitMQ (a vhost of its own). Target: within 10 s.
//   media.ready      — events without an order (each delivery independent)
//   post.published   — 100 posts x 10 events, each post's events delivered one after another
import { createRequire } from 'node:module';
import { table, fmt } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const { testEnv, dropDatabases, createTestVhost, startWebhookReceiver, internalHeaders, eventually } = require('../packages/testkit/dist');
const { setLogLevel } = require('../packages/logger/dist');
const { Broker } = require('../packages/events/dist');
const { domainEventsTopology, mediaReadyEvent, postPublishedEvent } = require('../packages/contracts/dist');
const { loadWebhooksConfig } = require('../services/webhooks/dist/config');
const { WebhooksService } = require('../services/webhooks/dist/webhooks-service');

const N = Number(process.env.BENCH_DELIVERIES ?? 1000);
const LATENCY_MS = Number(process.env.BENCH_RECEIVER_LATENCY_MS ?? 200);
setLogLevel(process.env.BENCH_LOG_LEVEL ?? 'error');

const env0 = testEnv();
const vhost = await createTestVhost(env0.AMQP_URL);
const receiver = await startWebhookReceiver(['bench.example.test']);
receiver.state.latencyMs = LATENCY_MS;
const env = {
  ...env0,
  AMQP_URL: vhost.amqpUrl,
  WEBHOOKS_PORT: '0',
  WEBHOOKS_ALLOW_CIDRS: '127.0.0.1/32',
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error',
};
const service = await WebhooksService.create(loadWebhooksConfig(env), { ca: receiver.ca });
const broker = await Broker.connect({ url: vhost.amqpUrl, connectionName: 'bench-webhooks', topology: domainEventsTopology() });
const api = `http://127.0.0.1:${service.port}/v2`;

async function endpoint(ws, path, eventTypes) {
  const res = await fetch(`${api}/webhooks`, {
    method: 'POST',
    headers: internalHeaders('webhooks', ws),
    body: JSON.stringify({ url: `https://127.0.0.1:${receiver.port}${path}`, eventTypes }),
  });
  if (res.status !== 201) throw new Error(`POST /webhooks: ${res.status} ${await res.text()}`);
}

async function run(name, path, publishAll) {
  const ws = `bench-${name}`;
  await endpoint(ws, path, [name]);
  const before = receiver.received.length;
  const started = performance.now();
  await publishAll(ws);
  const published = performance.now();
  // Unique deliveries answered 200 (at least once: a retried attempt may reach the receiver twice).
  await eventually(
    async () => new Set(receiver.received.filter((r) => r.url === path && r.answer === 200).map((r) => r.headers['webhook-id'])).size >= N,
    300000,
    20,
  );
  const done = performance.now();
  const mine = receiver.received.slice(before).filter((r) => r.url === path);
  const ids = new Set(mine.map((r) => r.headers['webhook-id']));
  return {
    events: name,
    deliveries: ids.size,
    requests: mine.length,
    'publish (s)': fmt((published - started) / 1000),
    'all delivered (s)': fmt((done - started) / 1000),
    'deliveries/s': fmt(N / ((done - started) / 1000), 0),
    'within 10 s': done - started <= 10000 ? 'yes' : 'NO',
  };
}

const rows = [];
try {
  // Warm-up: connections, indexes, JIT.
  await endpoint('bench-warm', '/warm', ['media.ready']);
  await broker.publish(
    mediaReadyEvent,
    { mediaId: 'warm', kind: 'IMAGE', readyAt: new Date().toISOString() },
    { workspaceId: 'bench-warm' },
  );
  await eventually(async () => receiver.received.some((r) => r.url === '/warm'), 30000, 20);

  rows.push(
    await run('media.ready', '/media', async (ws) => {
      await Promise.all(
        Array.from({ length: N }, (_, i) =>
          broker.publish(mediaReadyEvent, { mediaId: `m${i}`, kind: 'IMAGE', readyAt: new Date().toISOString() }, { workspaceId: ws }),
        ),
      );
    }),
  );
  const POSTS = Math.max(1, Math.floor(N / 10));
  rows.push(
    await run('post.published', '/posts', async (ws) => {
      const sends = [];
      for (let v = 0; v < N / POSTS; v++) {
        for (let p = 0; p < POSTS; p++) {
          sends.push(
            broker.publish(
              postPublishedEvent,
              {
                postId: `post${p}`,
                profileId: `prof${v}`,
                net: 'generalNet',
                networkPostId: `n${p}-${v}`,
                publishedAt: new Date().toISOString(),
                postVersion: v + 1,
              },
              { workspaceId: ws },
            ),
          );
        }
      }
      await Promise.all(sends);
    }),
  );
  console.log(
    `\n${N} webhook deliveries, receiver latency ${LATENCY_MS} ms (delivery prefetch ${loadWebhooksConfig(env).deliveryPrefetch})\n`,
  );
  console.log(table(rows, Object.keys(rows[0])));
} finally {
  await broker.close(2000);
  await service.destroy();
  await receiver.close();
  await vhost.drop();
  await dropDatabases(env.MONGO_URL, env.MONGO_DB_PREFIX);
}
