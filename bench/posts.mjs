// `pnpm bench posts` (or `node bench/posts.mjs`, after `pnpm build`): self-contained. Starts posts
// and the gateway from dist on free ports with their own databases (TestSystem), creates
// BENCH_POSTS (10,000) posts in one workspace through the gateway, measures the posts endpoints,
// then adds as many posts in OTHER workspaces and measures the list again: its latency must not
// depend on them (every query starts with an equality on workspaceId).
import http from 'node:http';
import { createRequire } from 'node:module';
import { load, table, fmt } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const { TestSystem } = require('../packages/testkit/dist');

const POSTS = Number(process.env.BENCH_POSTS ?? 10000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const OTHER_WORKSPACES = Number(process.env.BENCH_OTHER_WORKSPACES ?? 10);

const PLANS = JSON.stringify({ free: { competitors: 5 }, bench: { competitors: 5, requestsPerWindow: 100000000 } });
console.error('starting posts and gateway...');
const system = await TestSystem.start({ PLANS, LOG_LEVEL: 'warn' }, ['posts', 'gateway']);

const workspace = async (name) => {
  const c = await system.admin(['workspace', 'create', '--name', name, '--plan', 'bench', '--json']);
  return { 'X-API-ID': c.apiId, 'X-API-KEY': c.apiKey };
};

/** Sends `count` requests made by `bodyOf(i)` over `connections` keep-alive sockets; latencies in ms. */
async function createMany(headers, count, bodyOf, connections = CONNECTIONS) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(`${system.gatewayUrl}/v2/posts`);
  const latencies = [];
  const statuses = {};
  const ids = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const body = JSON.stringify(bodyOf(next++));
        const t0 = process.hrtime.bigint();
        await new Promise((resolve, reject) => {
          const req = http.request(
            {
              host: target.hostname,
              port: target.port,
              path: target.pathname,
              method: 'POST',
              agent,
              headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
            },
            (res) => {
              let data = '';
              res.on('data', (d) => (data += d));
              res.on('end', () => {
                latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
                statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
                if (res.statusCode === 201) ids.push(JSON.parse(data).id);
                resolve();
              });
            },
          );
          req.on('error', reject);
          req.end(body);
        });
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { ids, requests: count, rps: count / elapsed, p50: pct(50), p99: pct(99), statuses };
}

const STAGE_WORDS = ['spring', 'summer', 'autumn', 'winter'];
const postBody = (labelId) => (i) => ({
  type: 'STATUS',
  captions: [{ plainText: `Post ${i} about our ${STAGE_WORDS[i % 4]} collection`, net: null }],
  // Half DRAFTs spread over a year, half IDEAs.
  ...(i % 2 === 0 ? { publishAt: new Date(Date.UTC(2031, 0, 1) + i * 3_600_000).toISOString() } : {}),
  ...(i % 5 === 0 ? { labelIds: [labelId] } : {}),
});

try {
  const headers = await workspace('bench');
  const label = await (
    await fetch(`${system.gatewayUrl}/v2/labels`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench' }),
    })
  ).json();

  console.error(`creating ${POSTS} posts in the measured workspace...`);
  const created = await createMany(headers, POSTS, postBody(label.id));
  const rows = [{ request: `POST /posts (${POSTS} creations)`, ...row(created) }];

  const gw = `${system.gatewayUrl}/v2`;
  const reads = {
    'GET /posts?take=20': `${gw}/posts?take=20`,
    'GET /posts?take=20&skip=5000': `${gw}/posts?take=20&skip=5000`,
    'GET /posts?stages=DRAFT&types=STATUS&take=20': `${gw}/posts?stages=DRAFT&types=STATUS&take=20`,
    'GET /posts?search=winter&labelIds=..&take=20': `${gw}/posts?search=winter&labelIds=${label.id}&take=20`,
    'GET /posts?since=2031-03-01&until=2031-03-31': `${gw}/posts?since=2031-03-01&until=2031-03-31&take=20`,
  };
  const one = created.ids[Math.floor(created.ids.length / 2)];
  const measure = async (url) => {
    await load({ url, headers, connections: CONNECTIONS, seconds: 1 });
    return load({ url, headers, connections: CONNECTIONS, seconds: SECONDS });
  };
  const before = {};
  for (const [name, url] of Object.entries(reads)) {
    console.error(`measuring ${name}...`);
    before[name] = await measure(url);
    rows.push({ request: name, ...row(before[name]) });
  }
  console.error('measuring GET /posts/{id}...');
  rows.push({ request: 'GET /posts/{id}', ...row(await measure(`${gw}/posts/${one}`)) });

  console.error(`creating ${POSTS} posts in ${OTHER_WORKSPACES} other workspaces...`);
  for (let w = 0; w < OTHER_WORKSPACES; w++) {
    const other = await workspace(`other-${w}`);
    await createMany(other, Math.ceil(POSTS / OTHER_WORKSPACES), postBody('none-' + w));
  }
  const isolation = [];
  for (const name of ['GET /posts?take=20', 'GET /posts?stages=DRAFT&types=STATUS&take=20']) {
    console.error(`measuring ${name} with the other workspaces' posts present...`);
    const after = await measure(reads[name]);
    isolation.push({
      request: name,
      'p50 ms (others absent)': fmt(before[name].p50, 2),
      'p50 ms (others present)': fmt(after.p50, 2),
      'p99 ms (others absent)': fmt(before[name].p99, 2),
      'p99 ms (others present)': fmt(after.p99, 2),
      'req/s absent → present': `${fmt(before[name].rps, 0)} → ${fmt(after.rps, 0)}`,
    });
  }

  console.log(`\nposts through the gateway: ${POSTS} posts in the workspace, ${CONNECTIONS} connections, ${SECONDS} s per read\n`);
  console.log(table(rows, ['request', 'req/s', 'p50 ms', 'p99 ms', 'statuses']));
  console.log(`\nlist latency with ${POSTS} posts of ${OTHER_WORKSPACES} other workspaces absent vs present\n`);
  console.log(table(isolation, Object.keys(isolation[0])));
} finally {
  await system.destroy();
}

function row(r) {
  return { 'req/s': fmt(r.rps, 0), 'p50 ms': fmt(r.p50, 2), 'p99 ms': fmt(r.p99, 2), statuses: JSON.stringify(r.statuses) };
}
