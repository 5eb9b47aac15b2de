// A small closed-loop load generator with microsecond latencies (autocannon rounds to whole ms,
// too coarse for "under 1 ms at p50"). `connections` workers each send requests back to back
// over keep-alive sockets for `seconds`.
import http from 'node:http';

export async function load({ url, headers = {}, method = 'GET', body, connections = 8, seconds = 10 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL(url);
  const latencies = [];
  const statuses = new Map();
  const deadline = performance.now() + seconds * 1000;
  const one = () =>
    new Promise((resolve, reject) => {
      const start = process.hrtime.bigint();
      const req = http.request(
        // headers may be a function, for a header that differs per request (an Idempotency-Key).
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname + target.search,
          method,
          headers: typeof headers === 'function' ? headers() : headers,
          agent,
        },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
            statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: pct(50),
    p99: pct(99),
    statuses: Object.fromEntries(statuses),
  };
}

export function table(rows, columns) {
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (cells) => `| ${cells.map((v, i) => String(v).padEnd(widths[i])).join(' | ')} |`;
  return [line(columns), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map((r) => line(columns.map((c) => r[c])))].join(
    '\n',
  );
}

export const fmt = (n, digits = 2) => Number(n).toFixed(digits);

/**
 * Loads every target for `seconds` per scenario, round after round, the targets taking turns (so
 * machine noise hits them alike). Answers, per `${scenario.label}:${target}`, the averages over the
 * rounds and the statuses seen.
 */
export async function interleaved({ targets, scenarios, rounds, seconds, what = '' }) {
  const results = {};
  for (let round = 1; round <= rounds; round++) {
    for (const sc of scenarios) {
      for (const [name, t] of Object.entries(targets)) {
        console.error(`round ${round}/${rounds}: ${what}${name}, ${sc.connections} connection(s), ${seconds} s`);
        (results[`${sc.label}:${name}`] ??= []).push(await load({ ...t, connections: sc.connections, seconds }));
      }
    }
  }
  const avg = (list, k) => list.reduce((s, r) => s + r[k], 0) / list.length;
  return Object.fromEntries(
    Object.entries(results).map(([key, list]) => [
      key,
      { rps: avg(list, 'rps'), p50: avg(list, 'p50'), p99: avg(list, 'p99'), statuses: Object.assign({}, ...list.map((r) => r.statuses)) },
    ]),
  );
}
