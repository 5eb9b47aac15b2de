// `pnpm bench publish` (or `node bench/publish.mjs`): 10,000 posts × 1 profile due at the same
// moment, sandbox publish latency 100 ms, with 1 and with 2 publisher workers side by side.
// Reports throughput (publishes/s) and lateness (network publish time − due time) p50/p99/max.
//
// The posts side is played by the bench: at the due time it dispatches every job the way the
// posts dispatcher does (confirmed publishes of post.publish.requested) and serves
// GetPostForPublishing / GetPublishCredentials from memory over real gRPC, so what is measured is
// broker → worker → ledger → network → result.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { table } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { TestSystem, createTestVhost, testEnv, TEST_JWT_SECRET, sleep } = require('../packages/testkit/dist');
const { GrpcServer, serviceDefinition } = require('../packages/grpc/dist');
const { Broker } = require('../packages/events/dist');
const c = require('../packages/contracts/dist');
const { setLogLevel } = require('../packages/logger/dist');

setLogLevel('warn');
const POSTS = Number(process.env.BENCH_POSTS ?? 10000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 100);
const CONCURRENCY = process.env.PUBLISHER_CONCURRENCY ?? '32';
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const LEAD_MS = 3000;

const base = testEnv();
console.error('creating a vhost and the fake posts/competitors servers...');
const vhost = await createTestVhost(base.AMQP_URL);
const servers = [];
const credentials = {};
const opts = (name) => ({ serviceName: name, audience: name, internalJwtSecret: TEST_JWT_SECRET });
const posts = new GrpcServer(opts('posts')).addService(serviceDefinition('posts/v1/posts.proto', 'posts.v1.PostsService'), {
  GetPostForPublishing: async (req) => ({
    post_id: req.post_id,
    profile_id: req.profile_id,
    revision: 1,
    type: 'STATUS',
    stage: 'SCHEDULED',
    net: 'generalNet',
    caption: { plain_text: `bench post ${req.post_id}`, first_comment: '' },
    media_lib_ids: [],
    links: [],
    settings_json: '{}',
    publish_status: 'PENDING',
  }),
  CountMediaUsage: async () => ({ total: 0, scheduled: 0 }),
  FindPublishedByLabels: async () => ({ items: [] }),
});
const competitors = new GrpcServer(opts('competitors')).addService(
  serviceDefinition('competitors/v1/competitors.proto', 'competitors.v1.ProfilesService'),
  {
    GetPublishCredentials: async (req) => ({ profile_id: req.profile_id, ...credentials[req.profile_id] }),
    GetProfiles: async () => ({ items: [] }),
    GetCompetitor: async () => ({}),
    ConnectProfile: async () => ({}),
    ConnectSandboxProfiles: async () => ({ items: [] }),
  },
);
servers.push(posts, competitors);
const postsAddr = `127.0.0.1:${await posts.start('127.0.0.1', 0)}`;
const competitorsAddr = `127.0.0.1:${await competitors.start('127.0.0.1', 0)}`;

console.error('starting the network sandbox and a publisher worker...');
const system = await TestSystem.start(
  {
    AMQP_URL: vhost.amqpUrl,
    POSTS_GRPC_URL: postsAddr,
    MEDIA_GRPC_URL: postsAddr,
    COMPETITORS_GRPC_URL: competitorsAddr,
    SANDBOX_ADMIN: 'true',
    LOG_LEVEL: 'warn',
    PUBLISHER_CONCURRENCY: CONCURRENCY,
  },
  ['network-sandbox', 'publisher'],
);
const extraWorkers = [];
const results = new Map();
let broker;
try {
  const sandbox = async (method, p, body) => {
    const res = await fetch(`${system.env.NETWORK_SANDBOX_URL}${p}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return res.json();
  };
  const { accessToken } = await sandbox('POST', '/sandbox/generalNet/accounts/gn-own-1/tokens');
  credentials['prof-1'] = { net: 'generalNet', network_account_id: 'gn-own-1', access_token: accessToken };
  await sandbox('POST', '/sandbox/admin/latency', { publishMs: LATENCY_MS });

  broker = await Broker.connect({
    url: vhost.amqpUrl,
    connectionName: 'bench-posts',
    topology: {
      exchanges: [{ name: c.PUBLISHING_EXCHANGE, type: 'topic' }],
      queues: [
        { name: c.PUBLISH_RESULTS_QUEUE, bindings: [{ exchange: c.PUBLISHING_EXCHANGE, routingKey: c.publishCompleted.type }] },
        // Declared by the worker too; here so that jobs published before it subscribes are kept.
        {
          name: c.PUBLISH_JOBS_QUEUE,
          deliveryLimit: 5,
          bindings: [{ exchange: c.PUBLISHING_EXCHANGE, routingKey: c.publishRequested.type }],
        },
      ],
    },
  });
  await broker.consume(c.PUBLISH_RESULTS_QUEUE, [c.publishCompleted], (env) => {
    results.set(env.payload.postId, env.payload);
  }, { prefetch: 200 });

  const rows = [];
  const summary = {};
  for (const workers of WORKER_COUNTS) {
    while (extraWorkers.length < workers - 1) extraWorkers.push(await startWorker(system.env, extraWorkers.length + 2));
    const run = `w${workers}-${Date.now().toString(36)}`;
    const ids = Array.from({ length: POSTS }, (_, i) => `${run}-${i}`);
    const dueAt = new Date(Date.now() + LEAD_MS);
    console.error(`${workers} worker(s): ${POSTS} posts due at ${dueAt.toISOString()}`);
    await sleep(dueAt.getTime() - Date.now());
    // The dispatcher's burst at the due time: confirmed publishes, bounded in flight.
    const dispatchStart = Date.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < ids.length) {
          const id = ids[next++];
          const job = { postId: id, profileId: 'prof-1', revision: 1, net: 'generalNet', dueAt: dueAt.toISOString() };
          await broker.publish(c.publishRequested, job, { workspaceId: 'bench', id: c.publishJobEventId(job) });
        }
      }),
    );
    const dispatchMs = Date.now() - dispatchStart;
    const deadline = Date.now() + 15 * 60_000;
    while (ids.some((id) => !results.has(id))) {
      if (Date.now() > deadline) throw new Error(`only ${ids.filter((id) => results.has(id)).length} of ${POSTS} finished`);
      await sleep(250);
    }
    const finished = ids.map((id) => results.get(id));
    const failed = finished.filter((r) => r.status !== 'PUBLISHED').length;
    const lateness = finished
      .filter((r) => r.publishedAt)
      .map((r) => Date.parse(r.publishedAt) - dueAt.getTime())
      .sort((a, b) => a - b);
    const pct = (p) => lateness[Math.min(lateness.length - 1, Math.floor((p / 100) * lateness.length))];
    const spanS = lateness[lateness.length - 1] / 1000;
    const s = { throughput: POSTS / spanS, p50: pct(50), p99: pct(99), max: lateness[lateness.length - 1] };
    summary[workers] = s;
    rows.push({
      workers,
      posts: POSTS,
      failed,
      'dispatch (s)': (dispatchMs / 1000).toFixed(1),
      'publishes/s': s.throughput.toFixed(0),
      'late p50 (s)': (s.p50 / 1000).toFixed(2),
      'late p99 (s)': (s.p99 / 1000).toFixed(2),
      'late max (s)': (s.max / 1000).toFixed(2),
    });
  }
  const published = await sandbox('GET', '/sandbox/admin/published');
  console.log(`\npublish: ${POSTS} posts × 1 profile due at once, sandbox latency ${LATENCY_MS} ms, PUBLISHER_CONCURRENCY=${CONCURRENCY} per worker\n`);
  console.log(table(rows, Object.keys(rows[0])));
  if (summary[1] && summary[2]) console.log(`\nthroughput ratio 2 workers / 1 worker: ${(summary[2].throughput / summary[1].throughput).toFixed(2)}`);
  console.log(`sandbox: ${published.total} posts, ${published.duplicateKeys.length} duplicate keys`);
} finally {
  await broker?.close(2000).catch(() => undefined);
  for (const w of extraWorkers) await stopWorker(w);
  await system.destroy().catch(() => undefined);
  for (const s of servers) await s.shutdown(50);
  await vhost.drop();
}

async function startWorker(env, n) {
  const nodeArgs = process.env.BENCH_WORKER_NODE_ARGS ? process.env.BENCH_WORKER_NODE_ARGS.split(' ') : [];
  const child = spawn(process.execPath, [...nodeArgs, path.join(ROOT, 'services/publisher/dist/index.js')], {
    env: { ...process.env, ...env, PUBLISHER_PORT: '0', SERVICE_NAME: `publisher-${n}` },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await sleep(3000); // connects, declares, subscribes
  if (child.exitCode !== null) throw new Error(`worker ${n} exited with ${child.exitCode}`);
  return child;
}

async function stopWorker(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}
