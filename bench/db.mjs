// `pnpm bench db`: the embedded database as released (FerretDB v1.24.2) against our build with
// conditional writes (scripts/ferretdb/conditional-writes.patch), side by side in one run: both
// servers run at once on their own PostgreSQL databases, and every workload alternates between
// them round by round, so machine noise hits both alike.
//
// Workloads, each with 1 and 8 clients: insert of one document, find by _id, an uncontended update
// ($inc of a document only this client writes), and a contended compare-and-set (every client reads
// one hot document and writes it back conditionally on the version it read). For the last one the
// table also says how many "successful" writes the server reported that are not in the document:
// the writes it let two clients win.
import { execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { table, fmt } from './lib/load.mjs';

const require = createRequire(import.meta.url);
const { mongoose } = require('../packages/mongo/dist');
const { MongoClient } = mongoose.mongo;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PG = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const psql = (db, ...args) => execFileSync('psql', [`${PG}/${db}`, '-qtA', '-v', 'ON_ERROR_STOP=1', ...args], { encoding: 'utf8' });

console.error('building (once) or finding both FerretDB builds...');
const [patchedBin, stockBin] = execFileSync('bash', [path.join(ROOT, 'scripts/infra.sh'), 'ferretdb-builds'], { encoding: 'utf8' })
  .trim()
  .split('\n');

/** A FerretDB on a PostgreSQL database of its own, set up as scripts/infra.sh sets up ours. */
async function startServer(name, bin) {
  const db = `ferretdb_bench_${name}`;
  psql('postgres', '-c', `DROP DATABASE IF EXISTS ${db}`, '-c', `CREATE DATABASE ${db}`);
  psql(db, '-f', path.join(ROOT, 'scripts/ferretdb-pg-indexes.sql'));
  const [port, debugPort] = [await freePort(), await freePort()];
  const child = spawn(
    bin,
    [
      `--listen-addr=127.0.0.1:${port}`,
      `--debug-addr=127.0.0.1:${debugPort}`,
      '--telemetry=disable',
      // FerretDB writes state.json into this directory (the working directory by default).
      `--state-dir=${os.tmpdir()}`,
      '--log-level=error',
      '--handler=pg',
      `--postgresql-url=${PG}/${db}?pool_max_conns=100&sslmode=disable`,
    ],
    { env: { ...process.env, GOGC: '400' }, stdio: 'ignore' },
  );
  const client = new MongoClient(`mongodb://127.0.0.1:${port}/?maxPoolSize=16`, { retryWrites: false });
  for (let i = 0; ; i++) {
    try {
      await client.connect();
      break;
    } catch (err) {
      if (i > 100) throw err;
      await sleep(100);
    }
  }
  return {
    name,
    col: client.db('bench').collection('docs'),
    async stop() {
      await client.close();
      child.kill();
      await new Promise((r) => child.once('exit', r));
      psql('postgres', '-c', `DROP DATABASE IF EXISTS ${db}`);
    },
  };
}

/** `clients` loops running `op(client, i)` back to back for SECONDS; ops/s and p99 in ms. */
async function measure(clients, op) {
  const latencies = [];
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const t = performance.now();
        await op(c, i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { ops: latencies.length / ((performance.now() - started) / 1000), p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0 };
}

let seq = 0;
const workloads = [
  { label: 'insert', op: (s) => (c) => s.col.insertOne({ _id: `i-${++seq}`, c, text: 'x'.repeat(200), at: new Date() }) },
  { label: 'find by _id', op: (s) => (c, i) => s.col.findOne({ _id: `f-${(c * 7919 + i) % 1000}` }) },
  { label: 'update (uncontended)', op: (s) => (c, i) => s.col.updateOne({ _id: `u-${c}-${i % 50}` }, { $inc: { n: 1 } }) },
  {
    label: 'compare-and-set (contended)',
    op: (s, stats) => async () => {
      const doc = await s.col.findOne({ _id: 'hot' });
      const r = await s.col.updateOne({ _id: 'hot', v: doc.v }, { $set: { v: doc.v + 1 } });
      stats.wins += r.modifiedCount;
    },
  },
];

const servers = [];
try {
  servers.push(await startServer('stock', stockBin), await startServer('patched', patchedBin));
  for (const s of servers) {
    await s.col.insertMany(Array.from({ length: 1000 }, (_, i) => ({ _id: `f-${i}`, text: 'y'.repeat(200) })));
    await s.col.insertMany(Array.from({ length: 8 * 50 }, (_, i) => ({ _id: `u-${Math.floor(i / 50)}-${i % 50}`, n: 0 })));
  }
  const results = {};
  for (let round = 1; round <= ROUNDS; round++) {
    for (const w of workloads) {
      for (const clients of [1, 8]) {
        for (const s of round % 2 ? servers : [...servers].reverse()) {
          console.error(`round ${round}/${ROUNDS}: ${w.label}, ${clients} client(s), ${s.name}`);
          const stats = { wins: 0 };
          await s.col.updateOne({ _id: 'hot' }, { $set: { v: 0 } }, { upsert: true });
          const m = await measure(clients, w.op(s, stats));
          const kept = (await s.col.findOne({ _id: 'hot' })).v;
          const r = (results[`${w.label}|${clients}|${s.name}`] ??= { ops: [], p99: [], lost: 0, wins: 0 });
          r.ops.push(m.ops);
          r.p99.push(m.p99);
          r.wins += stats.wins;
          r.lost += stats.wins - kept;
        }
      }
    }
  }
  const avg = (a) => a.reduce((x, y) => x + y, 0) / a.length;
  const rows = [];
  for (const w of workloads) {
    for (const clients of [1, 8]) {
      const [st, pa] = ['stock', 'patched'].map((n) => results[`${w.label}|${clients}|${n}`]);
      const contended = w.label === 'compare-and-set (contended)';
      rows.push({
        workload: w.label,
        clients,
        'stock ops/s': fmt(avg(st.ops), 0),
        'ours ops/s': fmt(avg(pa.ops), 0),
        'ours/stock': fmt(avg(pa.ops) / avg(st.ops)),
        'stock p99 ms': fmt(avg(st.p99)),
        'ours p99 ms': fmt(avg(pa.p99)),
        'wins lost (stock / ours)': contended ? `${st.lost} of ${st.wins} / ${pa.lost} of ${pa.wins}` : '',
      });
    }
  }
  console.log(`\nFerretDB ${'v1.24.2'} as released (stock) vs our build, ${ROUNDS} rounds of ${SECONDS} s, alternating\n`);
  console.log(table(rows, Object.keys(rows[0])));
} finally {
  for (const s of servers) await s.stop().catch(() => undefined);
}
