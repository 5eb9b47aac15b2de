// `pnpm bench gateway`: GET /labels/ through the gateway vs directly against the posts service,
// and POST /labels through the gateway with and without an Idempotency-Key, side by side in one run
// (interleaved rounds, so machine noise hits both alike). BENCH_PART=get or =idempotency runs one part.
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { interleaved, load, table, fmt } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const { TestSystem, signTestToken } = require('../packages/testkit/dist');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PART = process.env.BENCH_PART ?? 'all';

const PLANS = JSON.stringify({ free: { competitors: 5 }, bench: { competitors: 5, requestsPerWindow: 100000000 } });
console.error('starting posts and gateway...');
const system = await TestSystem.start({ PLANS, LOG_LEVEL: 'warn' }, ['posts', 'gateway']);
try {
  const creds = await system.admin(['workspace', 'create', '--name', 'bench', '--plan', 'bench', '--json']);
  const apiHeaders = { 'X-API-ID': creds.apiId, 'X-API-KEY': creds.apiKey };
  for (let i = 0; i < 20; i++) {
    await fetch(`${system.gatewayUrl}/v2/labels`, {
      method: 'POST',
      headers: { ...apiHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `label ${i}` }),
    });
  }
  if (PART !== 'get') await idempotencyBench(apiHeaders);
  if (PART !== 'idempotency') await getBench(creds, apiHeaders);
} finally {
  await system.destroy();
}

async function getBench(creds, apiHeaders) {
  const internal = () => ({
    authorization: `Bearer ${signTestToken('gateway', 'posts', creds.workspaceId, { payload: { exp: Math.floor(Date.now() / 1000) + 600 } })}`,
  });
  const targets = {
    direct: { url: `${system.url('posts')}/v2/labels/?take=20`, headers: internal() },
    gateway: { url: `${system.gatewayUrl}/v2/labels/?take=20`, headers: apiHeaders },
  };
  console.error('warming up...');
  for (const t of Object.values(targets)) await load({ ...t, connections: CONNECTIONS, seconds: 2 });

  // Latency at 1 connection shows what the gateway adds without queueing; throughput at
  // CONNECTIONS shows how much of the direct capacity survives it.
  const scenarios = [
    { label: 'latency', connections: 1 },
    { label: 'throughput', connections: CONNECTIONS },
  ];
  const summary = await interleaved({ targets, scenarios, rounds: ROUNDS, seconds: SECONDS, what: '' });
  const rows = [];
  for (const sc of scenarios) {
    for (const name of Object.keys(targets)) {
      const s = summary[`${sc.label}:${name}`];
      rows.push({
        path: name === 'gateway' ? 'gateway → posts' : 'posts (direct)',
        connections: sc.connections,
        'req/s': fmt(s.rps, 0),
        'p50 ms': fmt(s.p50, 3),
        'p99 ms': fmt(s.p99, 3),
        statuses: JSON.stringify(s.statuses),
      });
    }
  }
  console.log(`\nGET /v2/labels/?take=20 (20 labels), ${ROUNDS} interleaved rounds of ${SECONDS} s\n`);
  console.log(table(rows, ['path', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'statuses']));
  const added = summary['latency:gateway'].p50 - summary['latency:direct'].p50;
  const kept = (summary['throughput:gateway'].rps / summary['throughput:direct'].rps) * 100;
  console.log(
    `\ngateway adds ${fmt(added, 3)} ms at p50 with 1 connection (goal < 1 ms: ${added < 1 ? 'met' : 'not met'}); ` +
      `keeps ${fmt(kept, 0)}% of direct throughput at ${CONNECTIONS} connections (goal >= 60%: ${kept >= 60 ? 'met' : 'not met'})`,
  );
}

/** The cost of the idempotency check: the same POST with a fresh Idempotency-Key each time, or none. */
async function idempotencyBench(apiHeaders) {
  const body = JSON.stringify({ name: 'bench label' });
  const base = { ...apiHeaders, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  const targets = {
    off: { url: `${system.gatewayUrl}/v2/labels`, method: 'POST', body, headers: base },
    on: { url: `${system.gatewayUrl}/v2/labels`, method: 'POST', body, headers: () => ({ ...base, 'Idempotency-Key': randomUUID() }) },
  };
  console.error('warming up (POST)...');
  for (const t of Object.values(targets)) await load({ ...t, connections: 1, seconds: 2 });
  const byKey = await interleaved({
    targets,
    scenarios: [{ label: 'post', connections: 1 }],
    rounds: ROUNDS,
    seconds: SECONDS,
    what: 'POST idempotency ',
  });
  const s = { off: byKey['post:off'], on: byKey['post:on'] };
  const rows = ['off', 'on'].map((name) => ({
    'idempotency check': name === 'on' ? 'on (fresh Idempotency-Key)' : 'off (no header)',
    'req/s': fmt(s[name].rps, 0),
    'p50 ms': fmt(s[name].p50, 3),
    'p99 ms': fmt(s[name].p99, 3),
    'p50 ratio': fmt(s[name].p50 / s.off.p50, 2),
    'p99 ratio': fmt(s[name].p99 / s.off.p99, 2),
    statuses: JSON.stringify(s[name].statuses),
  }));
  console.log(`\nPOST /v2/labels through the gateway, 1 connection, ${ROUNDS} interleaved rounds of ${SECONDS} s\n`);
  console.log(table(rows, ['idempotency check', 'req/s', 'p50 ms', 'p99 ms', 'p50 ratio', 'p99 ratio', 'statuses']));
  const added = s.on.p50 - s.off.p50;
  console.log(`\nthe idempotency check adds ${fmt(added, 3)} ms at p50 (goal <= 0.5 ms: ${added <= 0.5 ? 'met' : 'not met'})`);
}
