// `pnpm bench otel`: the cost of OpenTelemetry tracing. Two copies of posts + gateway side by side,
// one with tracing off (the default: no OTEL_* variable) and one exporting every span over
// OTLP/HTTP to a local receiver that counts and discards them; GET /labels/ through each gateway in
// interleaved rounds (so machine noise hits both alike).
import http from 'node:http';
import { createRequire } from 'node:module';
import { interleaved, load, table, fmt } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const { TestSystem } = require('../packages/testkit/dist');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PLANS = JSON.stringify({ free: { competitors: 5 }, bench: { competitors: 5, requestsPerWindow: 100000000 } });

let exported = 0;
const sink = http.createServer((req, res) => {
  req.on('data', (c) => (exported += c.length));
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
});
await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${sink.address().port}`;

console.error('starting posts and gateway twice (tracing off, tracing on)...');
const systems = {
  off: await TestSystem.start({ PLANS, LOG_LEVEL: 'warn' }, ['posts', 'gateway']),
  on: await TestSystem.start({ PLANS, LOG_LEVEL: 'warn', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }, ['posts', 'gateway']),
};
try {
  const targets = {};
  for (const [name, system] of Object.entries(systems)) {
    const creds = await system.admin(['workspace', 'create', '--name', 'bench', '--plan', 'bench', '--json']);
    const headers = { 'X-API-ID': creds.apiId, 'X-API-KEY': creds.apiKey };
    for (let i = 0; i < 20; i++) {
      await fetch(`${system.gatewayUrl}/v2/labels`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `label ${i}` }),
      });
    }
    targets[name] = { url: `${system.gatewayUrl}/v2/labels/?take=20`, headers };
  }
  console.error('warming up...');
  for (const t of Object.values(targets)) await load({ ...t, connections: CONNECTIONS, seconds: 2 });

  const scenarios = [
    { label: 'latency', connections: 1 },
    { label: 'throughput', connections: CONNECTIONS },
  ];
  const summary = await interleaved({ targets, scenarios, rounds: ROUNDS, seconds: SECONDS, what: 'tracing ' });
  const rows = [];
  for (const sc of scenarios) {
    for (const name of Object.keys(targets)) {
      const s = summary[`${sc.label}:${name}`];
      rows.push({
        tracing: name,
        connections: sc.connections,
        'req/s': fmt(s.rps, 0),
        'p50 ms': fmt(s.p50, 3),
        'p99 ms': fmt(s.p99, 3),
        statuses: JSON.stringify(s.statuses),
      });
    }
  }
  console.log(
    `\nGET /v2/labels/?take=20 through the gateway, ${ROUNDS} interleaved rounds of ${SECONDS} s; ${fmt(exported / 1e6, 1)} MB of spans exported\n`,
  );
  console.log(table(rows, ['tracing', 'connections', 'req/s', 'p50 ms', 'p99 ms', 'statuses']));
  const p50 = summary['latency:on'].p50 / summary['latency:off'].p50;
  const rps = summary['throughput:on'].rps / summary['throughput:off'].rps;
  console.log(
    `\ntracing on / off: p50 x${fmt(p50, 2)} (+${fmt(summary['latency:on'].p50 - summary['latency:off'].p50, 3)} ms) at 1 connection; throughput x${fmt(rps, 2)} at ${CONNECTIONS} connections`,
  );
} finally {
  await Promise.all(Object.values(systems).map((s) => s.destroy()));
  sink.close();
}
